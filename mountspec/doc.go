// Package mountspec describes a golem-box sandbox the way Docker users already
// think about one: a root directory seen as "/", extra bind mounts with a
// source, a target and a readonly flag, and no network unless asked for.
//
// It owns the configuration types, the golem-box.yaml loader (with errors that
// name the file, the line, the field path and the fix), Docker's --mount and -v
// syntax, validation, the virtual-path resolver and Restrict, which derives a
// narrower sandbox for a sub-worker.
//
// The resolver is lexical: Resolve maps a virtual path to a host path by the
// longest matching mount and never touches the disk, so it is cheap enough to
// call on every tool invocation. Following symbolic links, and doing I/O that
// cannot be raced out of a mount, is the job of package sandbox, which builds
// on Resolve and os.Root.
//
// Threat model: every path handed to this package by a model, a worker file or
// a command line is untrusted. Such strings are named unsafePath until they are
// resolved; resolution refuses NUL bytes, over-long paths and any ".." that
// would climb above the sandbox's "/".
//
// This package must not import Docker, containerd or cobra (see depcheck_test.go).
package mountspec
