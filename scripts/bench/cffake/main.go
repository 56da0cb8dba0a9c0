// Command cffake runs the fake Cloudflare API of the deploy tests (edge/cloudflare/cftest)
// for scripts/bench-deploy.sh: it prints its base URL, then serves until its standard
// input closes.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/opennumerology/numerology/edge/cloudflare/cftest"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: cffake TOKEN ACCOUNT_ID")
		os.Exit(2)
	}
	fake := cftest.New(os.Args[1], os.Args[2])
	defer fake.Close()
	fmt.Println(fake.URL)
	io.Copy(io.Discard, os.Stdin)
}
