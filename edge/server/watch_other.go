//go:build !linux

package server

import (
	"errors"

	"github.com/opennumerology/numerology/generator/manifest"
)

// watchTree is only implemented on Linux; elsewhere the cache keeps what it has read.
func watchTree(string, []manifest.File, func(string), func()) (func(), error) {
	return nil, errors.New("watching the tree is implemented on Linux only")
}
