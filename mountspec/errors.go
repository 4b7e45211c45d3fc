package mountspec

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinels for errors.Is. Path errors wrap one of them in a *PathError whose
// message guides a model towards what it can do instead (seed 003).
var (
	// ErrInvalidConfig marks every configuration error (exit status 2).
	ErrInvalidConfig = errors.New("invalid configuration")
	// ErrInvalidPath is a path that cannot be a path: empty, NUL bytes, too long.
	ErrInvalidPath = errors.New("invalid path")
	// ErrOutsideSandbox is a path no mount of the sandbox covers.
	ErrOutsideSandbox = errors.New("path is outside the sandbox")
	// ErrReadOnly is a write to a read-only mount.
	ErrReadOnly = errors.New("path is read-only")
	// ErrSuffixNotAllowed is a file whose suffix the files rules do not list.
	ErrSuffixNotAllowed = errors.New("suffix not allowed")
	// ErrTooLarge is a file or content above files.max_file_bytes.
	ErrTooLarge = errors.New("file too large")
	// ErrSymlinkLoop is a chain of symbolic links too long to follow.
	ErrSymlinkLoop = errors.New("too many levels of symbolic links")
	// ErrHardLink is a file with more than one name, refused by default.
	ErrHardLink = errors.New("file has several hard links")
	// ErrUpgrade is a restriction that asks for more than the parent has.
	ErrUpgrade = errors.New("cannot upgrade permissions")
)

// Limits on untrusted path strings, as Linux defines them.
const (
	MaxPathBytes      = 4096
	MaxComponentBytes = 255
)

// ConfigError is one problem in a configuration: where it is, what is wrong
// and how to fix it. It matches ErrInvalidConfig.
type ConfigError struct {
	File  string // configuration file, or "--mount", "-v", "--root" for flags
	Line  int    // 1-based line in File when the YAML parser knows it
	Field string // field path such as sandbox.mounts[2].target
	Msg   string // what is wrong
	Fix   string // how to fix it
}

func (e *ConfigError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
		}
		b.WriteString(": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.Fix != "" {
		b.WriteString(" (fix: ")
		b.WriteString(e.Fix)
		b.WriteString(")")
	}
	return b.String()
}

// Is makes every ConfigError match ErrInvalidConfig.
func (e *ConfigError) Is(target error) bool { return target == ErrInvalidConfig }

// PathError is a refusal that a model reads. Its message names the path, the
// reason, and what the sandbox does allow.
type PathError struct {
	Op   string // read, write, edit, delete, list, stat, resolve
	Path string // the virtual path as given
	Err  error  // one of the sentinels above, or an fs error
	// Readable and Writable are the sandbox's virtual paths, for guidance.
	Readable []string
	Writable []string
	// Suffixes are the allowed suffixes (ErrSuffixNotAllowed).
	Suffixes []string
	// Size and Limit are set for ErrTooLarge.
	Size, Limit int64
	// Detail adds a sentence specific to this refusal.
	Detail string
}

func (e *PathError) Error() string {
	var b strings.Builder
	verb := e.Op
	if verb == "" {
		verb = "access"
	}
	switch {
	case errors.Is(e.Err, ErrOutsideSandbox):
		fmt.Fprintf(&b, "Cannot %s %q: path is outside the sandbox.", verb, e.Path)
		fmt.Fprintf(&b, "\nReadable paths: %s", listOrNone(e.Readable))
	case errors.Is(e.Err, ErrReadOnly):
		fmt.Fprintf(&b, "Cannot %s %q: path is read-only.", verb, e.Path)
		fmt.Fprintf(&b, "\nWritable paths: %s", listOrNone(e.Writable))
	case errors.Is(e.Err, ErrSuffixNotAllowed):
		fmt.Fprintf(&b, "Cannot %s %q: suffix not allowed.", verb, e.Path)
		fmt.Fprintf(&b, "\nAllowed suffixes: %s", listOrNone(e.Suffixes))
	case errors.Is(e.Err, ErrTooLarge):
		fmt.Fprintf(&b, "Cannot %s %q: file too large (%d bytes).", verb, e.Path, e.Size)
		fmt.Fprintf(&b, "\nMaximum allowed: %d bytes", e.Limit)
	default:
		fmt.Fprintf(&b, "Cannot %s %q: %v.", verb, e.Path, e.Err)
	}
	if e.Detail != "" {
		b.WriteString("\n")
		b.WriteString(e.Detail)
	}
	return b.String()
}

func (e *PathError) Unwrap() error { return e.Err }

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
