# Helpers shared by every module.

# orrery_library(NAME SOURCES ... DEPS ...): a static library whose headers are included as
# "core/quantity.h" (relative to src/).
function(orrery_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
endfunction()

# orrery_test(NAME SOURCES ... DEPS ...): a GoogleTest executable registered with CTest.
# Tests run with the repository root as working directory; ORRERY_DATA_DIR is data/ (the
# public traces and configurations the project ships, data/README.md).
function(orrery_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gmock GTest::gtest_main)
  # Test code at -Og in the optimised build: the libraries under test keep -O2 (the tested code is
  # the shipped code), while the test files — fixtures, assertions, GoogleTest's templates — take
  # about 40 % less to compile than at -O2 (docs/PERFORMANCE.md, "Build time").
  if(CMAKE_BUILD_TYPE STREQUAL "RelWithDebInfo" AND NOT ORRERY_FUZZ)
    target_compile_options(${name} PRIVATE -Og)
  endif()
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests)  # scratch_dir.h
  target_compile_definitions(${name} PRIVATE
    ORRERY_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    ORRERY_DATA_DIR="${PROJECT_SOURCE_DIR}/data")
  # Each test is labelled with its executable's name, so subsets run by label (the tsan preset).
  gtest_discover_tests(${name} WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} DISCOVERY_TIMEOUT 60
                       PROPERTIES LABELS ${name})
endfunction()
