// Command bench is `make bench`: it measures golem-box against the plain
// operations it wraps, in the same run, and prints the ratios.
//
// Measured now: virtual-path resolutions per second (lexical, and following
// symbolic links on disk), and the time to read a 1 MiB file through the
// sandbox divided by plain os.ReadFile. The two are measured alternately,
// round after round, and compared by their medians so that a noisy
// neighbour slows both alike. For containers: `golem-box run -- true` on
// crun and runc against the raw runtime running an equivalent bundle.
package main
