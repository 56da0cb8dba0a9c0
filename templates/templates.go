// Package templates holds the templates of the human site — the HTML pages, llms.txt — and
// its static assets (CSS and the small script of the matrix details page), embedded in the
// binary. The generator renders them into the out/ tree.
package templates

import (
	"embed"
	"io/fs"
)

//go:embed *.html *.txt assets/*
var files embed.FS

// FS returns the embedded templates and assets: the page templates (*.html, layout.html
// holding the shared frame), llms.txt (a text/template) and assets/, copied as they are.
func FS() fs.FS { return files }
