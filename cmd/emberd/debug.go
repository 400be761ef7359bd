package main

import (
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/spf13/cobra"

	"github.com/emberchain/ember/accounts"
)

func debugCmd() *cobra.Command {
	var home string
	cmd := &cobra.Command{
		Use:   "debug",
		Short: "Tools for inspecting addresses",
	}
	cmd.PersistentFlags().StringVar(&home, "home", defaultHome(), "node home directory (its genesis sets the bech32 prefix)")
	cmd.AddCommand(debugAddrCmd(&home))
	return cmd
}

func debugAddrCmd(home *string) *cobra.Command {
	return &cobra.Command{
		Use:   "addr ADDR",
		Short: "Print every spelling of an address: hex, EIP-55 and bech32 (account, validator, consensus)",
		Long: `Print every spelling of a 20-byte address. ADDR is 0x hex, bare hex (40 digits),
or any bech32 account (ember1…), validator operator (embervaloper1…) or
consensus (embervalcons1…) address of this chain.`,
		Example: "  emberd debug addr 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266\n  emberd debug addr ember17w0adeg64ky0daxwd2ugyuneellmjgnxksye5t",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			prefixes, err := chainPrefixes(*home)
			if err != nil {
				return err
			}
			addr, err := parseAnyAddress(prefixes, args[0])
			if err != nil {
				return err
			}
			printAddr(cmd, prefixes, addr)
			return nil
		},
	}
}

// parseAnyAddress reads a 20-byte address in any spelling debug addr takes.
func parseAnyAddress(prefixes accounts.Prefixes, s string) (common.Address, error) {
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		if !common.IsHexAddress(s) {
			return common.Address{}, fmt.Errorf("invalid hex address %q: want 0x and 40 hex digits", s)
		}
		return common.HexToAddress(s), nil
	}
	// Bare hex, as Cosmos' debug addr takes it. Forty hex digits are never a
	// valid bech32 string of this chain: those start with its prefix and "1".
	if b, err := hex.DecodeString(s); err == nil && len(b) == common.AddressLength {
		return common.BytesToAddress(b), nil
	}
	kind, data, err := prefixes.Decode(s)
	if err != nil {
		return common.Address{}, err
	}
	switch kind {
	case accounts.KindAccount, accounts.KindValidator, accounts.KindConsensus:
		return common.BytesToAddress(data), nil
	}
	return common.Address{}, fmt.Errorf("%q is a %s, not an address: debug addr takes an account, validator or consensus address", s, kind)
}

// printAddr prints the Cosmos SDK's `debug addr` lines plus the EIP-55 one.
func printAddr(cmd *cobra.Command, prefixes accounts.Prefixes, addr common.Address) {
	spell := func(k accounts.Kind) string {
		s, _ := prefixes.Encode(k, addr[:]) // 20 bytes: cannot fail
		return s
	}
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "Address: %v\n", addr[:])
	fmt.Fprintf(w, "Address (hex): %X\n", addr[:])
	fmt.Fprintf(w, "Address (EIP-55): %s\n", addr.Hex())
	fmt.Fprintf(w, "Bech32 Acc: %s\n", spell(accounts.KindAccount))
	fmt.Fprintf(w, "Bech32 Val: %s\n", spell(accounts.KindValidator))
	fmt.Fprintf(w, "Bech32 Con: %s\n", spell(accounts.KindConsensus))
}
