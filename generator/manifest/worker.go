package manifest

import (
	"fmt"
	"slices"
)

// WorkerFiles returns the files of the tree the Cloudflare Worker reads, derived from the
// edge config as the worker derives them from edge.json: edge.json itself and mcp.json (the
// MCP endpoint's tools); for a route whose bodies are also packed (Route.Packed), the packed
// file of every value of the tree's years, which is all the worker reads of it; for any
// other route, the file of every value its parameter types admit. Error bodies are no file
// of their own to the worker: it answers them from edge.json. problems lists what of the
// edge config the worker needs and lacks (an error body, a parameter type it does not
// know), each said of edge.json: "has no body for the error …".
func (m *Manifest) WorkerFiles() (files []string, problems []string) {
	edge := &m.Edge
	files = []string{EdgeFile, MCPFile}
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	for _, r := range edge.Routes {
		known := true
		for _, p := range r.Params {
			if p.Arity() == 0 {
				bad("gives route %s the parameter type %q, which the worker does not know", r.Name, p.Type)
				known = false
			}
		}
		if !known {
			continue
		}
		if r.Packed != nil {
			for _, y := range m.Years {
				files = append(files, r.PackedFiles(y)...)
			}
			continue
		}
		for _, v := range r.Values(m.Years) {
			files = append(files, r.FilePath(v))
		}
	}
	ee := edge.EdgeErrors
	keys := []string{ee.NotFound, ee.MethodNotAllowed, ee.TooManyRequests, ee.Internal}
	for _, r := range edge.Routes {
		if r.Error != "" && !slices.Contains(keys, r.Error) {
			keys = append(keys, r.Error)
		}
	}
	for _, k := range keys {
		if e, ok := edge.Errors[k]; !ok || e.Body == "" {
			bad("has no body for the error %s, which the worker answers", k)
		}
	}
	return files, problems
}

// Listed returns what reports whether the manifest lists a tree path: the root lists it,
// or it is a file of a packed route whose shard the root lists (the shard's own check says
// whether the shard lists it).
func (m *Manifest) Listed() func(p string) bool {
	root := m.Index()
	return func(p string) bool {
		if root[p] != nil {
			return true
		}
		_, inShard := m.Shard(m.Edge.ShardOf(p))
		return inShard
	}
}
