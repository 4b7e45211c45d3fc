// Package seatbelt runs jobs under macOS's Seatbelt (sandbox-exec -f), the
// OS sandbox of trusted work on macOS.
//
// Profile writes the profile from the sandbox: deny by default; the
// operating system readable (/System, /usr, /bin, /sbin, /Library, /private/etc
// and the dyld caches), process creation and the system services a shell
// and its tools need; the sandbox's root and mounts readable, and writable
// when their mode says so, at their host paths (Seatbelt cannot remap
// paths, as Landlock cannot); a private temporary directory; the network
// denied unless it is on. Paths are canonicalised first (/tmp is
// /private/tmp on macOS), because Seatbelt matches the real path.
//
// Profiles are golden-tested on Linux; Run exists only on darwin.
package seatbelt
