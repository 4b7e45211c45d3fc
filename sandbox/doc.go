// Package sandbox is golem-box's single I/O layer (seed 004): the file tools
// that models, workers and the CLI use to read, write, edit, delete, list and
// stat files through a mountspec.Sandbox, at virtual paths.
//
// Threat model. Paths come from a model or another untrusted party, and the
// files under the mounts may be changed concurrently by something hostile
// (a command run in the sandbox, an unpacked archive). So:
//
//   - Every path is resolved by mountspec (no ".." above "/", no NUL bytes,
//     bounded length) and then walked here one component at a time.
//     Symbolic links are followed as a container would follow them: an
//     absolute target is a path inside the sandbox's own "/", a relative one
//     is taken from the link's virtual directory, and either way the result
//     must stay inside the sandbox (and, for writes, inside a read-write
//     mount). The host's "/" is never consulted.
//   - All real I/O goes through an os.Root opened on each mount's source, so
//     even a directory swapped for a symbolic link between the walk and the
//     open cannot lead outside that mount. The file opened is then compared
//     (device and inode) with the one the walk found; a mismatch is refused.
//   - Writes replace files atomically (temporary file and rename in the same
//     directory); appends refuse files with several hard links, and reads do
//     too unless files.allow_hard_links is set, since a second name may be a
//     way into a file outside the sandbox. FIFOs and devices are refused
//     without blocking. The API has no way to create links.
//
// Errors are *mountspec.PathError values whose text guides a model: which
// paths are readable or writable, which suffixes are allowed, the size limit.
package sandbox
