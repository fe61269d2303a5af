// The services registry of a runtime: typed handles to what a world offers policies beyond the
// cluster itself — per-node telemetry (the simulator's execution model now, CARICO's agents
// later), capacity tables, the execution-history database, the API client. A world provides the
// services it has; a policy asks for the ones it needs and fails with a clear message when one
// is missing. Services are not owned.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <typeindex>

namespace orrery::fw {

class Services {
 public:
  template <class T>
  void provide(T* service) {
    by_type_[std::type_index(typeid(T))] = service;
  }
  template <class T>
  void withdraw() {
    by_type_.erase(std::type_index(typeid(T)));
  }
  // nullptr when the world does not offer T.
  template <class T>
  T* find() const {
    auto it = by_type_.find(std::type_index(typeid(T)));
    return it == by_type_.end() ? nullptr : static_cast<T*>(it->second);
  }
  // Throws std::runtime_error naming `what` (e.g. "node telemetry") when T is not provided.
  template <class T>
  T& get(const char* what) const {
    if (T* s = find<T>()) return *s;
    throw std::runtime_error(std::string("this runtime does not provide ") + what);
  }

 private:
  std::map<std::type_index, void*> by_type_;
};

}  // namespace orrery::fw
