//go:build !linux

package sandbox

import "os"

// realPath is not available here: reads always take the full walk.
func realPath(*os.File) (string, bool) { return "", false }
