package main

// The backends this binary knows: each registers itself with runner.
import (
	_ "github.com/golem-box/golem-box/runner/bwrap"      // bwrap
	_ "github.com/golem-box/golem-box/runner/containerd" // containerd
	_ "github.com/golem-box/golem-box/runner/docker"     // docker
	_ "github.com/golem-box/golem-box/runner/landlock"   // landlock
	_ "github.com/golem-box/golem-box/runner/oci"        // oci, oci/runc, oci/crun
	_ "github.com/golem-box/golem-box/runner/seatbelt"   // seatbelt
)
