//go:build linux

// Command probe runs inside a sandbox for the conformance suite and reports
// what the kernel lets it do. It is built static and bound read-only.
package main

import (
	"fmt"
	"net"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: probe syscalls | connect ADDR")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "syscalls":
		report("mount", unix.Mount("tmpfs", "/tmp", "tmpfs", 0, ""))
		report("unshare", unix.Unshare(unix.CLONE_NEWUSER|unix.CLONE_NEWNS))
		report("ptrace", unix.PtraceAttach(1))
		_, err := unix.KeyctlJoinSessionKeyring("golem-probe")
		report("keyctl", err)
		report("proc-sys-write", os.WriteFile("/proc/sys/kernel/hostname", []byte("x"), 0))
	case "connect":
		c, err := net.DialTimeout("tcp", os.Args[2], 2*time.Second)
		if err != nil {
			fmt.Println("connect:", err)
			os.Exit(1)
		}
		c.Close()
		fmt.Println("connect: ok")
	}
}

func report(name string, err error) {
	if err == nil {
		fmt.Printf("%s=allowed\n", name)
		return
	}
	fmt.Printf("%s=denied (%v)\n", name, err)
}
