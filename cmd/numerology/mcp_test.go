package main

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/opennumerology/numerology/edge/mcptest"
	"github.com/opennumerology/numerology/internal/testsupport"
)

// TestMCPStdio drives numerology mcp over stdio with the Go SDK's client, as a 2026-07-28
// client and as a 2025-11-25 one: every tool is listed and called, and answers the tree's
// bytes.
func TestMCPStdio(t *testing.T) {
	t.Parallel()
	bin, err := exec.LookPath("numerology")
	if err != nil {
		t.Fatal(err)
	}
	dir := sharedTree(t)
	for _, v := range mcptest.Versions {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			client := mcp.NewClient(&mcp.Implementation{Name: "numerology-test", Version: "1"}, nil)
			cmd := exec.Command(bin, "mcp", "--dir", dir)
			var stderr testsupport.SyncBuffer // the server's log: what it said before it failed
			cmd.Stderr = &stderr
			cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd},
				&mcp.ClientSessionOptions{ProtocolVersion: v})
			if err != nil {
				t.Fatalf("connect: %v (the server's state: %v; its stderr: %q)", err, cmd.ProcessState, stderr.String())
			}
			defer cs.Close()
			if got := cs.InitializeResult().ProtocolVersion; got != v {
				t.Errorf("protocol version %s, want %s", got, v)
			}
			mcptest.CheckSession(t, ctx, cs, dir)
		})
	}
}
