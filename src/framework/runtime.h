// The runtime: what one world (the simulator, a static snapshot, a real cluster) gives the
// scheduling code that runs in it. Everything a policy or plugin reaches goes through here:
//
//   backend       the cluster: its state, actions (bind, delete, create, mutate) and events
//   clock         the time and timers (virtual in the simulator, wall time for real)
//   services      typed extras the world offers (NodeTelemetry, ...)
//   reservations  room promised to pods (nominations, plans, capacity reservations), consulted
//                 by every scheduler cycle and plan executor of the runtime
//
// Policies are built from a fw::PolicyRegistry with a PolicyContext that holds a Runtime; no
// policy core includes a simulator header.
#pragma once

#include "framework/backend.h"
#include "framework/clock.h"
#include "framework/reservations.h"
#include "framework/services.h"

namespace orrery::fw {

struct Runtime {
  ClusterBackend& backend;
  Clock& clock;
  Services& services;
  Reservations& reservations;
};

}  // namespace orrery::fw
