// Package trust decides whether a command handles content that came from
// outside, and where it may therefore run.
//
// Content is untrusted when the configuration says so (a mount marked
// `trust: untrusted`), when --untrusted says so, when an attachment comes
// from an untrusted place, or when a file the command can reach carries a
// provenance mark: the extended attributes browsers, curl and wget write on
// Linux (user.xdg.origin.url, user.xdg.referrer.url), macOS's quarantine
// attribute (com.apple.quarantine), or a Windows Zone.Identifier stream
// copied alongside a file. --trusted states the opposite and wins, but the
// marks it overrides are still reported.
//
// Route turns the verdict into a backend: untrusted content always runs in
// a container (an OCI runtime, else containerd, else the Docker Engine);
// trusted work runs under the lightest OS sandbox that is usable
// (bubblewrap, else Landlock on Linux; Seatbelt on macOS), and in a
// container when none is. Nothing is ever silently moved to a weaker
// layer: a backend named explicitly that is too weak for the verdict is an
// error, and every decision carries the reasons for it (run --explain).
//
// The scan is bounded: past MaxEntries files the verdict is untrusted,
// since the rest could not be checked. Mounts marked `trust: trusted` are
// not scanned. This package does not import the backends; Route is given a
// probe that asks them.
package trust
