// Package audit reads what a container will run with, an OCI runtime
// config.json or the output of docker inspect, and reports the settings that
// weaken its isolation.
//
// Both formats are parsed into one neutral Subject, so each rule is written
// once and reads the same fact whichever format it came from; every finding
// still names the field of the input it came from (process.capabilities.bounding,
// HostConfig.CapAdd), so that a reader can find and fix it.
//
// The rule table (Rules) is the single source of truth: docs/audit-rules.md
// and the SARIF rule metadata are generated from it. Severities follow one
// scale: critical is a direct way to the host (privileged, host root bound,
// runtime socket); high removes a layer an escape would have to cross;
// medium weakens a layer or a limit; low is defence in depth; info is worth
// knowing.
//
// Threat model: the input is untrusted. It is bounded in size (MaxInputBytes),
// parsed with the standard JSON decoder, and never executed or followed: paths
// in it are compared as strings, not opened.
package audit
