package main

import (
	"fmt"
	"io"

	"github.com/golem-box/golem-box/sandbox"
	"github.com/spf13/cobra"
)

func newWriteCmd(g *globals) *cobra.Command {
	var opt sandbox.WriteOptions
	var content string
	var fromArg bool
	var ap approvals
	cmd := &cobra.Command{
		Use:   "write PATH",
		Short: "Write a file through the sandbox (atomic replace, or --append)",
		Long:  "Write a file through the sandbox. The content is --content, or standard input.",
		Args:  args(cobra.ExactArgs(1)),
		RunE: g.withFS(&ap, func(cmd *cobra.Command, a []string, fsys *sandbox.FS) error {
			data := []byte(content)
			if !fromArg {
				// Bounded: never hold more than the mount could accept.
				lim := int64(fsys.Sandbox().Files.MaxFileBytes)
				if r, err := fsys.Sandbox().Resolve(a[0]); err == nil {
					lim = int64(r.Files.MaxFileBytes)
				}
				if lim <= 0 {
					lim = sandbox.DefaultMaxFileBytes
				}
				var err error
				if data, err = io.ReadAll(io.LimitReader(cmd.InOrStdin(), lim+1)); err != nil {
					return err
				}
			}
			r, err := fsys.Write(a[0], data, opt)
			if err != nil {
				return err
			}
			if g.json() {
				return printJSON(cmd.OutOrStdout(), r)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %d bytes to %s\n", r.Bytes, r.Path)
			return nil
		}),
	}
	cmd.Flags().BoolVar(&opt.Append, "append", false, "append instead of replacing")
	cmd.Flags().StringVar(&content, "content", "", "content to write (default: standard input)")
	ap.flags(cmd)
	cmd.PreRun = func(cmd *cobra.Command, _ []string) { fromArg = cmd.Flags().Changed("content") }
	return cmd
}

func newEditCmd(g *globals) *cobra.Command {
	var old, neu string
	var all bool
	var ap approvals
	cmd := &cobra.Command{
		Use:   "edit PATH --old TEXT --new TEXT",
		Short: "Replace exact text in a file through the sandbox",
		Args:  args(cobra.ExactArgs(1)),
		RunE: g.withFS(&ap, func(cmd *cobra.Command, a []string, fsys *sandbox.FS) error {
			r, err := fsys.Edit(a[0], old, neu, all)
			if err != nil {
				return err
			}
			if g.json() {
				return printJSON(cmd.OutOrStdout(), r)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "replaced %d occurrence(s) in %s\n", r.Replacements, r.Path)
			return nil
		}),
	}
	cmd.Flags().StringVar(&old, "old", "", "exact text to replace")
	cmd.Flags().StringVar(&neu, "new", "", "replacement text")
	cmd.Flags().BoolVar(&all, "all", false, "replace every occurrence (otherwise the text must appear once)")
	cmd.MarkFlagRequired("old")
	ap.flags(cmd)
	return cmd
}

func newRmCmd(g *globals) *cobra.Command {
	var recursive bool
	var ap approvals
	cmd := &cobra.Command{
		Use:   "rm PATH...",
		Short: "Delete files or directories through the sandbox",
		Args:  args(cobra.MinimumNArgs(1)),
		RunE: g.withFS(&ap, func(cmd *cobra.Command, paths []string, fsys *sandbox.FS) error {
			for _, p := range paths {
				if err := fsys.Delete(p, recursive); err != nil {
					return err
				}
			}
			return nil
		}),
	}
	cmd.Flags().BoolVarP(&recursive, "recursive", "r", false, "delete directories and their content")
	ap.flags(cmd)
	return cmd
}
