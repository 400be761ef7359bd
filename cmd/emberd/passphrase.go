package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"
)

// prompter asks the user questions on stderr and reads the answers from
// stdin, one line per prompt. On a terminal, secrets are read without echo;
// otherwise (a pipe, a test) lines are read as they come, so scripts can feed
// every answer in order. docs/keys.md documents the order for each command.
type prompter struct {
	in       *bufio.Reader // one reader for every prompt: it may buffer lines ahead
	terminal int           // stdin's file descriptor when it is a terminal, else -1
	out      io.Writer     // where prompts go (stderr)
}

func newPrompter(in io.Reader, out io.Writer) *prompter {
	p := &prompter{in: bufio.NewReader(in), terminal: -1, out: out}
	if f, ok := in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.terminal = int(f.Fd())
	}
	return p
}

// line reads an answer that may be shown as typed (a confirmation).
func (p *prompter) line(prompt string) (string, error) {
	fmt.Fprint(p.out, prompt)
	s, err := p.in.ReadString('\n')
	// A last line without a newline is still an answer; nothing at all is not.
	if err != nil && (!errors.Is(err, io.EOF) || s == "") {
		if errors.Is(err, io.EOF) {
			return "", fmt.Errorf("no answer to %q: standard input ended", strings.TrimSpace(prompt))
		}
		return "", err
	}
	if p.terminal < 0 {
		fmt.Fprintln(p.out) // end the prompt's line: the answer was not echoed
	}
	return strings.TrimRight(s, "\r\n"), nil
}

// secret reads a passphrase or mnemonic: without echo on a terminal.
func (p *prompter) secret(prompt string) (string, error) {
	if p.terminal < 0 {
		return p.line(prompt)
	}
	fmt.Fprint(p.out, prompt)
	b, err := term.ReadPassword(p.terminal)
	fmt.Fprintln(p.out) // the user's Enter was not echoed either
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// newPassphrase asks for a passphrase and its repeat. A new passphrase may
// not be empty: an empty one would leave the key readable by anyone who has
// the file, which is what the test backend is for.
func (p *prompter) newPassphrase(what string) (string, error) {
	pass, err := p.secret(fmt.Sprintf("Enter a passphrase to encrypt %s: ", what))
	if err != nil {
		return "", err
	}
	if pass == "" {
		return "", errors.New("empty passphrase refused (use --keyring-backend test for unencrypted development keys)")
	}
	repeat, err := p.secret("Repeat the passphrase: ")
	if err != nil {
		return "", err
	}
	if repeat != pass {
		return "", errors.New("passphrases do not match")
	}
	return pass, nil
}

// confirm asks a yes/no question; only y or yes (any case) is a yes.
func (p *prompter) confirm(question string) (bool, error) {
	answer, err := p.line(question + " [y/N]: ")
	if err != nil {
		return false, err
	}
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		return true, nil
	}
	return false, nil
}
