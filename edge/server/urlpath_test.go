package server

import "testing"

// TestResolvePath checks resolvePath against the paths the WHATWG URL parser gives (the
// wants are new URL("http://h" + in).pathname in Node 22, the parser workerd also follows).
func TestResolvePath(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/", "/"},
		{"/a/b", "/a/b"},
		{"/a/./b", "/a/b"},
		{"/a/../b", "/b"},
		{"/a/b/..", "/a/"},
		{"/a/b/.", "/a/b/"},
		{"/..", "/"},
		{"/../..", "/"},
		{"/a/%2e%2E/b", "/b"},
		{"/a/.%2e/b", "/b"},
		{"/a/%2E./b", "/b"},
		{"/a/%2e/b", "/a/b"},
		{"/a\\b\\..\\c", "/a/c"},
		{"/a//../b", "/a/b"},
		{"/a/..%2f/b", "/a/..%2f/b"},
		{"/a/.../b", "/a/.../b"},
		{"/a/..b/c", "/a/..b/c"},
		{"//a/../b", "//b"},
		{"/a/b/%2e%2e", "/a/"},
		{"/a/b/%2e", "/a/b/"},
		{"/a/%2e%2e%2e/b", "/a/%2e%2e%2e/b"},
		{"/a/%252e/b", "/a/%252e/b"},
		{"/a/.%2E", "/"},
		{"/a\\", "/a/"},
		{"/\\a", "//a"},
		{"*", "*"},
	}
	for _, tt := range tests {
		if got := resolvePath(tt.in); got != tt.want {
			t.Errorf("resolvePath(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// BenchmarkResolvePath measures the common case, a path without dots or backslashes, and
// one that needs resolving.
func BenchmarkResolvePath(b *testing.B) {
	for _, p := range []string{"/api/public/matrix/15/5/1990", "/api/public/matrix/1/x/../5/1990"} {
		b.Run(p, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				resolvePath(p)
			}
		})
	}
}
