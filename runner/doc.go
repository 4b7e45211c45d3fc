// Package runner runs a command in a sandbox through one of several
// backends (OCI runtimes now; Docker, containerd, bubblewrap, Landlock and
// Seatbelt as they land), behind one interface, with one Result.
//
// Each backend is a subpackage, so that engine clients never leak into the
// configuration layers. runnertest holds the conformance suite that every
// backend must pass against the real component on this machine.
package runner
