// Package realwindow holds one test of the local edge server: the shared conformance suite
// with the contract's own rate window of a minute. It is a package of its own so that
// go test runs its minute of waiting beside the server's other tests instead of after them.
package realwindow
