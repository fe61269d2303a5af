#include "k8s/api_backend.h"

namespace orrery::k8s {

ApiBackend::ApiBackend(ApiClient& client, fw::RealTimeLoop& loop, ApiBackendOptions options)
    : options_(std::move(options)),
      cache_(client, loop, options_, alive_),
      exec_(client, loop, options_, cache_, alive_) {
  cache_.set_hooks(&exec_);
}

ApiBackend::~ApiBackend() {
  *alive_ = false;
  stop(true);
}

void ApiBackend::stop(bool drop) {
  cache_.stop();
  exec_.stop(drop);
}

}  // namespace orrery::k8s
