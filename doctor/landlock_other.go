//go:build !linux

package doctor

func landlockABI() int { return 0 }
