// The bundled demo scenario (scenarios/demo.yaml, embedded at build time).
#pragma once

namespace orrery::sim {

const char* demo_scenario_yaml();

}  // namespace orrery::sim
