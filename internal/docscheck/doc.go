// Package docscheck holds the repository's documentation guard, a test that
// keeps three house rules from eroding:
//
//   - Code comments say why the code is as it is. Measurements (benchmark
//     figures, shares of CPU, before/after pairs) and dates belong in commit
//     messages and bench/README.md, where they are dated and reproducible;
//     in a comment they go stale unseen.
//   - README.md stays short enough to read: at most 300 lines, the rest
//     linked from it.
//   - Relative links in README.md, docs/*.md and bench/README.md lead to a
//     file that exists and, with a #fragment, to a heading of that file.
//
// The package has no code of its own; the rules are in docscheck_test.go.
package docscheck
