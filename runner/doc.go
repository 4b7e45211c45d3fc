// Package runner runs a command in a sandbox through one of several
// backends (OCI runtimes, the Docker Engine and containerd now; bubblewrap,
// Landlock and Seatbelt as they land), behind one interface, with one
// Result. Backends that can explain themselves implement Diagnoser (what
// doctor prints) and those that leave state behind implement Collector
// (what gc runs).
//
// Each backend is a subpackage, so that engine clients never leak into the
// configuration layers. runnertest holds the conformance suite that every
// backend must pass against the real component on this machine.
package runner
