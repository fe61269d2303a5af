#include "cli/output.h"

#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <map>
#include <string>

#include "io/limits.h"

namespace orrery::cli {
namespace {

// Whether a plain YAML scalar with this text would be read back as something other than the
// string (YAML 1.1/1.2 core schema words and numbers), or is not a valid plain scalar.
bool needs_quotes(const std::string& s) {
  if (s.empty()) return true;
  static const char* const kWords[] = {"null",  "Null",  "NULL",  "~",   "true", "True", "TRUE",
                                       "false", "False", "FALSE", "yes", "Yes",  "YES",  "no",
                                       "No",    "NO",    "on",    "On",  "ON",   "off",  "Off",
                                       "OFF",   "y",     "Y",     "n",   "N"};
  for (const char* w : kWords)
    if (s == w) return true;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  if (end == s.c_str() + s.size()) return true;  // a number
  const std::string lower = s.substr(0, 4);
  return s.front() == ' ' || s.back() == ' ' || s.find(": ") != std::string::npos ||
         s.find(" #") != std::string::npos ||
         std::string("-?:,[]{}#&*!|>'\"%@`").find(s.front()) != std::string::npos ||
         lower == ".nan" || lower == ".inf";
}

void emit(YAML::Emitter& out, const Json& j) {
  switch (j.type()) {
    case Json::value_t::object:
      out << YAML::BeginMap;
      for (const auto& [k, v] : j.items()) {
        out << YAML::Key;
        if (needs_quotes(k)) out << YAML::DoubleQuoted;
        out << k << YAML::Value;
        emit(out, v);
      }
      out << YAML::EndMap;
      break;
    case Json::value_t::array:
      out << YAML::BeginSeq;
      for (const Json& v : j) emit(out, v);
      out << YAML::EndSeq;
      break;
    case Json::value_t::string: {
      const std::string& s = j.get_ref<const std::string&>();
      if (needs_quotes(s)) out << YAML::DoubleQuoted;
      out << s;
      break;
    }
    case Json::value_t::null: out << YAML::Null; break;
    default:  // numbers and booleans: as JSON writes them
      out << j.dump();
      break;
  }
}

std::map<const CLI::App*, std::vector<std::string>>& formats_by_app() {
  static std::map<const CLI::App*, std::vector<std::string>> m;
  return m;
}

}  // namespace

const std::vector<std::string>* output_formats_of(const CLI::App* app) {
  auto it = formats_by_app().find(app);
  return it == formats_by_app().end() ? nullptr : &it->second;
}

CLI::Option* add_output_option(CLI::App* app, std::string* format,
                               const std::vector<std::string>& formats) {
  formats_by_app()[app] = formats;
  std::string list;
  for (const std::string& f : formats) list += (list.empty() ? "" : "|") + f;
  return app
      ->add_option("-o,--output", *format,
                   "Output format on stdout: " + list + " (default " + *format + ")")
      ->check(CLI::IsMember(formats));
}

std::string to_yaml(const Json& doc) {
  YAML::Emitter out;
  out.SetIndent(2);
  emit(out, doc);
  return std::string(out.c_str()) + "\n";
}

void print_document(const Json& doc, const std::string& format) {
  const std::string text = format == "yaml" ? to_yaml(doc) : doc.dump(2) + "\n";
  std::fwrite(text.data(), 1, text.size(), stdout);
}

void add_allow_large_flag(CLI::App* app) {
  app->add_flag_callback(
      "--allow-large", [] { allow_large_inputs(true); },
      "Lift the input limits (10 million pods or tasks, 1 million nodes, 10 million "
      "time-series samples, 4 GiB files; docs/scenarios.md, Limits)");
}

}  // namespace orrery::cli
