package trust

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/golem-box/golem-box/mountspec"
	"github.com/pkg/xattr"
)

// MaxEntries bounds the files a scan looks at.
const MaxEntries = 200_000

// Marks are the extended attributes that say a file came from elsewhere.
var Marks = []string{"user.xdg.origin.url", "user.xdg.referrer.url", "com.apple.quarantine", "user.com.apple.quarantine"}

// Kind is what made content untrusted.
type Kind string

// Kinds of reasons.
const (
	KindFlag       Kind = "flag"       // --untrusted or --trusted
	KindMount      Kind = "mount"      // trust: untrusted in the configuration
	KindMark       Kind = "mark"       // a provenance attribute on a file
	KindAttachment Kind = "attachment" // an attachment from an untrusted place
	KindUnchecked  Kind = "unchecked"  // the scan could not look at everything
)

// Reason is one piece of evidence.
type Reason struct {
	Kind Kind `json:"kind"`
	// Path is the host path concerned, if any.
	Path string `json:"path,omitempty"`
	// Detail says what was found: the attribute and its value, the field.
	Detail string `json:"detail"`
}

// Verdict is what Classify decided.
type Verdict struct {
	Untrusted bool     `json:"untrusted"`
	Reasons   []Reason `json:"reasons"`
	// Overridden are reasons --trusted set aside.
	Overridden []Reason `json:"overridden,omitempty"`
	// Scanned is how many files were looked at.
	Scanned int `json:"scanned"`
}

// Options are what the command line adds.
type Options struct {
	Untrusted, Trusted bool
	// Attachments are host paths handed to the command; UntrustedAttachments
	// marks them as coming from outside.
	Attachments          []string
	UntrustedAttachments bool
	// MaxEntries overrides the package's bound (tests).
	MaxEntries int
}

// Classify looks at the sandbox and the options and decides.
func Classify(ctx context.Context, sb *mountspec.Sandbox, o Options) (*Verdict, error) {
	if o.Trusted && o.Untrusted {
		return nil, errors.New("--trusted and --untrusted contradict each other: give one")
	}
	v := &Verdict{Reasons: []Reason{}}
	if o.Untrusted {
		v.Reasons = append(v.Reasons, Reason{Kind: KindFlag, Detail: "--untrusted"})
	}
	for i, m := range sb.Mounts {
		if m.Trust == mountspec.Untrusted {
			v.Reasons = append(v.Reasons, Reason{Kind: KindMount, Path: m.Source,
				Detail: fmt.Sprintf("sandbox.mounts[%d] (%s) is marked trust: untrusted", i, m.Target)})
		}
	}
	for _, a := range o.Attachments {
		if o.UntrustedAttachments {
			v.Reasons = append(v.Reasons, Reason{Kind: KindAttachment, Path: a, Detail: "attachment from an untrusted source"})
		}
	}
	limit := o.MaxEntries
	if limit <= 0 {
		limit = MaxEntries
	}
	var roots []string
	if sb.Root != "" {
		roots = append(roots, sb.Root)
	}
	for _, m := range sb.Mounts {
		if m.Trust != mountspec.Trusted && m.Trust != mountspec.Untrusted { // an untrusted mount needs no scan
			roots = append(roots, m.Source)
		}
	}
	roots = append(roots, o.Attachments...)
	for _, r := range roots {
		if err := v.scan(ctx, r, limit); err != nil {
			return nil, err
		}
	}
	v.Untrusted = len(v.Reasons) > 0
	if o.Trusted {
		v.Overridden, v.Reasons = v.Reasons, []Reason{{Kind: KindFlag, Detail: "--trusted"}}
		v.Untrusted = false
	}
	return v, nil
}

// errStop ends a walk early.
var errStop = errors.New("stop")

// scan walks root without following links and records marked files. One
// mark per file is enough; the walk stops at the limit.
func (v *Verdict) scan(ctx context.Context, root string, limit int) error {
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // unreadable entries cannot be handed to the command either
		}
		if v.Scanned >= limit {
			v.Reasons = append(v.Reasons, Reason{Kind: KindUnchecked, Path: root,
				Detail: fmt.Sprintf("more than %d files: the rest could not be checked for provenance marks; mark the mount trust: trusted or untrusted", limit)})
			return errStop
		}
		if v.Scanned%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		v.Scanned++
		if strings.HasSuffix(d.Name(), ":Zone.Identifier") {
			v.Reasons = append(v.Reasons, Reason{Kind: KindMark, Path: p, Detail: "Windows Zone.Identifier stream (downloaded)"})
			return nil
		}
		names, err := xattr.LList(p)
		if err != nil {
			return nil // no extended attributes here (filesystem without them)
		}
		for _, n := range names {
			if slices.Contains(Marks, n) {
				val, _ := xattr.LGet(p, n)
				v.Reasons = append(v.Reasons, Reason{Kind: KindMark, Path: p, Detail: n + "=" + printable(val)})
				break
			}
		}
		return nil
	})
	if errors.Is(err, errStop) {
		return nil
	}
	return err
}

// printable shortens an attribute value for a message.
func printable(b []byte) string {
	s := strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, string(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
