// Package workflows holds the tests of the GitHub Actions workflows in .github/workflows:
// that every push and pull request is tested, and that publishing deploys only a commit
// whose tests passed. actionlint (make check) checks their syntax; these tests check intent.
package workflows
