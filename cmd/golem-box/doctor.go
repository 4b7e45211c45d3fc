package main

import (
	"slices"

	"fmt"
	"github.com/golem-box/golem-box/trust"
	"io"
	"strings"

	"github.com/golem-box/golem-box/doctor"
	"github.com/golem-box/golem-box/runner"
	"github.com/spf13/cobra"
)

func newDoctorCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "doctor [BACKEND...]",
		Short: "Say which backends can run here, why not, and what fixes them",
		Long: `Check the kernel features golem-box relies on and every backend (or the named
ones): usable or not, the reason (binary missing, daemon down, socket
permission, user namespaces off, runtime versions with known escapes) and the
command that fixes it. Exits 1 when no container backend is usable (untrusted content
could not run).`,
		RunE: func(cmd *cobra.Command, names []string) error {
			r := doctor.Check(cmd.Context(), names, runner.Settings{})
			if g.json() {
				if err := printJSON(cmd.OutOrStdout(), r); err != nil {
					return err
				}
			} else {
				printDoctor(cmd.OutOrStdout(), r)
			}
			// Untrusted content needs a container: without one, golem-box
			// cannot do its main job here.
			if !slices.ContainsFunc(r.Usable(), func(n string) bool { return trust.LayerOf(n) == trust.Container }) {
				return exitError{1}
			}
			return nil
		},
	}
}

func printDoctor(w io.Writer, r *doctor.Report) {
	h := r.Host
	onOff := func(b bool) string {
		if b {
			return "on"
		}
		return "off"
	}
	userns := "unknown"
	switch {
	case h.UserNamespaces == 0:
		userns = "off (user.max_user_namespaces = 0)"
	case h.UserNamespaces > 0:
		userns = fmt.Sprintf("on (max %d)", h.UserNamespaces)
	}
	cg := h.Cgroups
	if cg == "" {
		cg = "none"
	}
	landlock := onOff(h.Landlock)
	if h.LandlockABI > 0 {
		landlock += fmt.Sprintf(" (ABI %d)", h.LandlockABI)
	}
	fmt.Fprintf(w, "host: kernel %s, cgroups %s, user namespaces %s, seccomp %s, Landlock %s\n\n",
		h.Kernel, cg, userns, onOff(h.Seccomp), landlock)
	width := len("BACKEND")
	for _, d := range r.Backends {
		width = max(width, len(d.Backend))
	}
	fmt.Fprintf(w, "%-*s  %-6s  %s\n", width, "BACKEND", "USABLE", "VERSION OR REASON")
	for _, d := range r.Backends {
		usable, detail := "yes", d.Version
		if !d.Usable {
			usable, detail = "no", d.Reason
		}
		fmt.Fprintf(w, "%-*s  %-6s  %s\n", width, d.Backend, usable, detail)
		indent := strings.Repeat(" ", width+2)
		if d.Fix != "" {
			fmt.Fprintf(w, "%s  fix: %s\n", indent, d.Fix)
		}
		for _, n := range d.Notes {
			fmt.Fprintf(w, "%s  %s: %s\n", indent, n.Level, n.Msg)
			if n.Fix != "" {
				fmt.Fprintf(w, "%s    fix: %s\n", indent, n.Fix)
			}
		}
	}
}
