// Package runstate is what the container backends share about a run on
// this host: its id, the private state directory that holds its bundle,
// the owner stamp that lets `golem-box gc` tell a live run from one a
// SIGKILL left behind, and the kernel's evidence of an OOM kill.
//
// Every backend that leaves something outside its own process (a bundle,
// a runtime's state, a daemon's container) records the owner with it, so
// that garbage collection is the same question everywhere: is the process
// that made this still alive?
package runstate
