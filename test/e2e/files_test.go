package e2e

import (
	"errors"
	"os"
)

func readFile(p string) ([]byte, error)    { return os.ReadFile(p) }
func writeFile(p string, b []byte) error   { return os.WriteFile(p, b, 0o644) }
func errorsAsTarget(err error, t any) bool { return errors.As(err, t) }
