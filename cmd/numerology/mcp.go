package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/opennumerology/numerology/edge/server"
)

type mcpOptions struct {
	dir string
	// in and out are the transport's streams: the process's stdin and stdout, or a test's.
	in  io.ReadCloser
	out io.WriteCloser
}

func newMCPCmd() *cobra.Command {
	opts := &mcpOptions{}
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the API's tools to an AI assistant over stdio (Model Context Protocol)",
		Long: `mcp serves the tools of a generated tree over the Model Context Protocol on stdin and
stdout, as the /mcp endpoint of serve and of the worker does over HTTP (docs/mcp.md): one tool
per route of the API, each answering the same record bytes the route serves, read through
the tree's manifest. An assistant (Claude Desktop, Claude Code, Cursor, …) starts it as a
local server: numerology mcp --dir /path/to/out. Logs go to stderr.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMCP(cmd.Context(), cmd, opts)
		},
	}
	cmd.Flags().StringVarP(&opts.dir, "dir", "d", "out", "the generated tree whose tools to serve")
	return cmd
}

func runMCP(ctx context.Context, cmd *cobra.Command, opts *mcpOptions) error {
	m, err := loadServedTree(opts.dir)
	if err != nil {
		return err
	}
	// Warnings and errors only: an assistant shows a local server's stderr as its log.
	logger := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	h, err := server.New(server.Options{Dir: opts.dir, Manifest: m, Logger: logger})
	if err != nil {
		return withCode(exitVerify, fmt.Errorf("mcp %s: %w", opts.dir, err))
	}
	defer h.Close()
	srv, err := newMCPServer(h, logger)
	if err != nil {
		return withCode(exitVerify, fmt.Errorf("mcp %s: %w", opts.dir, err))
	}
	var t mcp.Transport = &mcp.StdioTransport{}
	if opts.in != nil {
		t = &mcp.IOTransport{Reader: opts.in, Writer: opts.out}
	}
	if err := srv.Run(ctx, t); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		return withCode(exitIO, fmt.Errorf("mcp: %w", err))
	}
	return nil
}

// newMCPServer is the MCP server of a tree: its tools as tools/list of the HTTP endpoint
// lists them, each call answered by the tree's handler (server.Handler.CallTool).
func newMCPServer(h *server.Handler, logger *slog.Logger) (*mcp.Server, error) {
	info, err := h.MCP()
	if err != nil {
		return nil, err
	}
	var list struct {
		Tools []*mcp.Tool `json:"tools"`
	}
	if err := json.Unmarshal(info.List, &list); err != nil {
		return nil, fmt.Errorf("tools/list: %w", err)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: info.Server.Name, Title: info.Server.Title, Version: info.Server.Version},
		&mcp.ServerOptions{Instructions: info.Instructions, Logger: logger})
	for _, tool := range list.Tools {
		srv.AddTool(tool, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			body, isError, structured, err := h.CallTool(req.Params.Name, req.Params.Arguments)
			if err != nil {
				return nil, err
			}
			res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(body)}}, IsError: isError}
			if structured {
				res.StructuredContent = json.RawMessage(body)
			}
			return res, nil
		})
	}
	return srv, nil
}
