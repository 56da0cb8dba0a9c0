package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/opennumerology/numerology/generator/manifest"
)

// version is set at build time with -ldflags "-X main.version=…"; otherwise the module
// version from the build info is used.
var version = ""

func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the program and API versions",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "numerology %s (API %s, %s %s/%s)\n",
				buildVersion(), manifest.APIVersion, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}
