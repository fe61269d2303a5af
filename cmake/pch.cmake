# Precompiled headers (GCC builds: release, asan, tsan, debug). The headers below are parsed in
# more than a hundred translation units each — nlohmann/json about 3 s, yaml-cpp about 2 s per
# unit on this project's 2-core CI machine, GoogleTest and gmock in every test file — so each
# build parses them once: every orrery_library reuses orrery_pch_lib's precompiled header, every
# orrery_test orrery_pch_test's (CMake's REUSE_FROM). Only the flags of the build (optimisation,
# sanitizers) must match, and they do within a build directory; a target whose flags did not
# would be warned about (-Winvalid-pch) and compile the headers as text, correctly.
# docs/PERFORMANCE.md, "Build time". ORRERY_PCH=OFF turns it off.
option(ORRERY_PCH "Precompile the most included library headers (GCC only)" ON)
set(ORRERY_PCH_ACTIVE OFF)
if(ORRERY_PCH AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  set(ORRERY_PCH_ACTIVE ON)
endif()

set(ORRERY_PCH_HEADERS
  <algorithm> <cstdint> <functional> <map> <memory> <optional> <set> <sstream> <string>
  <unordered_map> <utility> <vector>
  <nlohmann/json.hpp> <yaml-cpp/yaml.h>)

# orrery_pch_target(NAME SOURCE LIBS HEADERS...): an object library compiled once with the
# precompiled header that other targets reuse.
function(orrery_pch_target name libs)
  file(WRITE ${CMAKE_BINARY_DIR}/${name}.cc "// precompiled headers only (cmake/pch.cmake)\n")
  add_library(${name} OBJECT ${CMAKE_BINARY_DIR}/${name}.cc)
  target_link_libraries(${name} PRIVATE ${libs})
  target_precompile_headers(${name} PRIVATE ${ARGN})
endfunction()

if(ORRERY_PCH_ACTIVE)
  orrery_pch_target(orrery_pch_lib "nlohmann_json::nlohmann_json;yaml-cpp" ${ORRERY_PCH_HEADERS})
endif()

# orrery_use_pch(TARGET lib|test): reuse the shared precompiled header.
function(orrery_use_pch target kind)
  if(NOT ORRERY_PCH_ACTIVE)
    return()
  endif()
  if(kind STREQUAL "test")
    if(NOT TARGET orrery_pch_test)
      orrery_pch_target(orrery_pch_test "nlohmann_json::nlohmann_json;yaml-cpp;GTest::gtest;GTest::gmock"
                        ${ORRERY_PCH_HEADERS} <gtest/gtest.h> <gmock/gmock.h>)
    endif()
    target_precompile_headers(${target} REUSE_FROM orrery_pch_test)
  else()
    target_precompile_headers(${target} REUSE_FROM orrery_pch_lib)
  endif()
endfunction()
