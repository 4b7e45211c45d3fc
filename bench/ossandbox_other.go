//go:build !linux

package main

import "fmt"

// benchOSSandboxes times bubblewrap and Landlock, which are Linux's.
func benchOSSandboxes(string, int) error {
	fmt.Println("bwrap and landlock: Linux only")
	return nil
}
