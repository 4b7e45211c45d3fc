package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/golem-box/golem-box/mountspec"
	"github.com/golem-box/golem-box/oci"
	"github.com/spf13/cobra"
)

func newCheckCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "check",
		Short: "Validate the configuration and print the effective sandbox",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, file, err := g.config()
			if err != nil {
				return err
			}
			report := struct {
				Config   string             `json:"config,omitempty"`
				Sandbox  mountspec.Sandbox  `json:"sandbox"`
				Readable []string           `json:"readable"`
				Writable []string           `json:"writable"`
				Shadows  []mountspec.Shadow `json:"shadows,omitempty"`
				// HiddenInContainers are root entries the image's OS paths hide.
				HiddenInContainers []string `json:"hidden_in_containers,omitempty"`
			}{file, cfg.Sandbox, cfg.Sandbox.ReadablePaths(), cfg.Sandbox.WritablePaths(), cfg.Sandbox.Shadows(), oci.HiddenByImage(&cfg.Sandbox)}
			if report.Readable == nil {
				report.Readable = []string{}
			}
			if report.Writable == nil {
				report.Writable = []string{}
			}
			if g.json() {
				return printJSON(cmd.OutOrStdout(), report)
			}
			printSandbox(cmd.OutOrStdout(), file, &cfg.Sandbox, report.Shadows)
			for _, h := range report.HiddenInContainers {
				fmt.Fprintf(cmd.OutOrStdout(), "note: %s of the root is hidden in containers by the image's own %s (the file tools still see it)\n", h, h)
			}
			return nil
		},
	}
}

func printSandbox(w io.Writer, file string, s *mountspec.Sandbox, shadows []mountspec.Shadow) {
	if file == "" {
		file = "(none: flags only)"
	}
	fmt.Fprintf(w, "config:   %s\n", file)
	fmt.Fprintln(w, "mounts:")
	printMounts(w, s)
	net := "off"
	switch {
	case len(s.Network.Allow) > 0:
		net = "only " + strings.Join(s.Network.Allow, ", ")
	case s.Network.Enabled:
		net = "on"
	}
	fmt.Fprintf(w, "network:  %s\n", net)
	l := s.Limits
	fmt.Fprintf(w, "limits:   memory=%s pids=%d cpus=%g timeout=%s output=%s (0 means the backend default)\n",
		l.Memory, l.PIDs, l.CPUs, l.Timeout, l.OutputBytes)
	if len(s.Files.Suffixes) > 0 || s.Files.MaxFileBytes > 0 {
		fmt.Fprintf(w, "files:    suffixes=%s max_file_bytes=%d\n", strings.Join(s.Files.Suffixes, ","), s.Files.MaxFileBytes)
	}
	image, backend := s.Image, string(s.Backend)
	if image == "" {
		image = "host"
	}
	if backend == "" {
		backend = "auto"
	}
	fmt.Fprintf(w, "image:    %s\nbackend:  %s\nrequire_os_sandbox: %v\n", image, backend, s.RequireOSSandbox)
	for _, sh := range shadows {
		fmt.Fprintf(w, "note: mount %s hides %s (from mount %s)\n", sh.Target, sh.Hidden, sh.By)
	}
}

// printMounts prints one line per mount: target, mode, source, name, and
// the approval and file rules that differ from the defaults.
func printMounts(w io.Writer, s *mountspec.Sandbox) {
	if s == nil || s.Root == "" && len(s.Mounts) == 0 {
		fmt.Fprintln(w, "  (none: no file access)")
		return
	}
	line := func(target string, ro bool, source, name string, a mountspec.Approval, f mountspec.FileRules) {
		mode := "rw"
		if ro {
			mode = "ro"
		}
		fmt.Fprintf(w, "  %-20s %s  %s", target, mode, source)
		if name != "" {
			fmt.Fprintf(w, "  (%s)", name)
		}
		if !ro {
			fmt.Fprintf(w, "  write: %s, delete: %s", a.Write, a.Delete)
		}
		if len(f.Suffixes) > 0 {
			fmt.Fprintf(w, "  suffixes: %s", strings.Join(f.Suffixes, " "))
		}
		if f.MaxFileBytes > 0 {
			fmt.Fprintf(w, "  max_file_bytes: %s", f.MaxFileBytes)
		}
		fmt.Fprintln(w)
	}
	if s.Root != "" {
		line("/", s.ReadOnly, s.Root, "", s.RootApproval(), s.Files)
	}
	for i := range s.Mounts {
		m := &s.Mounts[i]
		line(m.Target, m.ReadOnly, m.Source, m.Name, s.MountApproval(m), s.MountFiles(m))
	}
}
