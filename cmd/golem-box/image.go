package main

import (
	"fmt"
	"strings"

	"github.com/golem-box/golem-box/images"
	"github.com/spf13/cobra"
)

func newImageCmd(g *globals) *cobra.Command {
	var dir string
	cache := func() *images.Cache {
		if dir == "" {
			dir = images.DefaultDir()
		}
		return &images.Cache{Dir: dir}
	}
	show := func(cmd *cobra.Command, img *images.Image) error {
		if g.json() {
			return printJSON(cmd.OutOrStdout(), img)
		}
		fmt.Fprintf(cmd.OutOrStdout(), "%s %s\n", shortID(img.ID), strings.Join(img.Names, ","))
		return nil
	}
	root := &cobra.Command{Use: "image", Short: "Manage the local image cache (operating systems for containers)"}
	root.PersistentFlags().StringVar(&dir, "images", "", "image cache directory (default: $GOLEM_BOX_IMAGES, /var/lib/golem-box/images for root)")

	var name string
	imp := &cobra.Command{
		Use:   "import SRC",
		Short: "Import a root filesystem (directory or tarball), an OCI layout, or a docker save tarball",
		Args:  args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			img, err := cache().Import(cmd.Context(), a[0], name)
			if err != nil {
				return err
			}
			return show(cmd, img)
		},
	}
	imp.Flags().StringVar(&name, "name", "", "name for the image (such as tools:1)")

	var fromHost bool
	var bname string
	build := &cobra.Command{
		Use:   "build --from-host [--name NAME] CMD...",
		Short: "Build a minimal image from host commands and the libraries they need",
		Args:  args(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			if !fromHost {
				return usageError{fmt.Errorf("only --from-host builds exist: golem-box never pulls")}
			}
			img, err := cache().BuildFromHost(cmd.Context(), bname, a...)
			if err != nil {
				return err
			}
			return show(cmd, img)
		},
	}
	build.Flags().BoolVar(&fromHost, "from-host", false, "take the commands and their shared libraries from this host")
	build.Flags().StringVar(&bname, "name", "", "name for the image")

	ls := &cobra.Command{
		Use:   "ls",
		Short: "List cached images",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			all, err := cache().List()
			if err != nil {
				return err
			}
			if g.json() {
				if all == nil {
					all = []images.Image{}
				}
				return printJSON(cmd.OutOrStdout(), all)
			}
			for _, img := range all {
				fmt.Fprintf(cmd.OutOrStdout(), "%s  %-24s  %s  %s\n", shortID(img.ID), strings.Join(img.Names, ","), img.Created.Format("2006-01-02 15:04"), img.Source)
			}
			return nil
		},
	}
	rm := &cobra.Command{
		Use:   "rm NAME|ID...",
		Short: "Remove images from the cache",
		Args:  args(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, refs []string) error {
			for _, r := range refs {
				img, err := cache().Remove(r)
				if err != nil {
					return err
				}
				fmt.Fprintln(cmd.OutOrStdout(), "removed", shortID(img.ID))
			}
			return nil
		},
	}
	root.AddCommand(imp, build, ls, rm)
	return root
}

func shortID(id string) string {
	h := strings.TrimPrefix(id, "sha256:")
	if len(h) > 12 {
		h = h[:12]
	}
	return h
}
