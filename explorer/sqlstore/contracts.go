package sqlstore

import (
	"context"
	"database/sql"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/explorer"
)

var _ explorer.ContractStore = (*Store)(nil)

// saveMu serializes verifications: each takes the next id (MAX+1), which
// two concurrent writers could otherwise both take.
var saveMu sync.Mutex

const verifiedCols = `id, address, name, language, compiler_version, evm_version, optimization, optimizer_runs, license_type,
	abi, file_path, source_code, settings, metadata, constructor_args, creation_code, deployed_code, code_hash, full_match, verified_at`

// SaveVerifiedContract implements explorer.ContractStore: the row and its
// sources replace any earlier verification of the address, and take a new
// id (the list shows the newest verification first).
func (s *Store) SaveVerifiedContract(ctx context.Context, c *explorer.VerifiedContract) error {
	saveMu.Lock()
	defer saveMu.Unlock()
	return s.inTx(ctx, func(tx *sql.Tx) error {
		addr := addrKey(c.Address)
		for _, q := range []string{`DELETE FROM verified_sources WHERE address = ?`, `DELETE FROM verified_contracts WHERE address = ?`} {
			if _, err := tx.ExecContext(ctx, s.d.rebind(q), addr); err != nil {
				return err
			}
		}
		var id int64
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(id), 0) + 1 FROM verified_contracts`).Scan(&id); err != nil {
			return err
		}
		var runs any
		if c.OptimizerRuns != nil {
			runs = *c.OptimizerRuns
		}
		if _, err := tx.ExecContext(ctx, s.d.rebind(`INSERT INTO verified_contracts (`+verifiedCols+`, name_lower)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
			id, addr, c.Name, c.Language, c.CompilerVersion, c.EVMVersion, boolInt(c.Optimization), runs, c.LicenseType,
			c.ABI, c.FilePath, c.SourceCode, c.Settings, c.Metadata, c.ConstructorArgs, c.CreationCode, nonNil(c.DeployedCode),
			key(c.CodeHash[:]), boolInt(c.FullMatch), c.VerifiedAt, strings.ToLower(c.Name)); err != nil {
			return err
		}
		// All sources in one statement.
		if len(c.Sources) > 0 {
			args := make([]any, 0, 3*len(c.Sources))
			for _, f := range c.Sources {
				args = append(args, addr, f.Path, f.Content)
			}
			q := `INSERT INTO verified_sources (address, file_path, content) VALUES (?, ?, ?)` + strings.Repeat(`, (?, ?, ?)`, len(c.Sources)-1)
			if _, err := tx.ExecContext(ctx, s.d.rebind(q), args...); err != nil {
				return err
			}
		}
		c.ID = id
		return nil
	})
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (s *Store) scanVerified(r scanner) (*explorer.VerifiedContract, error) {
	var (
		c              explorer.VerifiedContract
		addr, codeHash string
		opt, full      int
		runs           sql.NullInt64
		args, creation []byte
	)
	if err := r.Scan(&c.ID, &addr, &c.Name, &c.Language, &c.CompilerVersion, &c.EVMVersion, &opt, &runs, &c.LicenseType,
		&c.ABI, &c.FilePath, &c.SourceCode, &c.Settings, &c.Metadata, &args, &creation, &c.DeployedCode, &codeHash, &full, &c.VerifiedAt); err != nil {
		return nil, err
	}
	d := decoder{d: s.d}
	c.Address, c.CodeHash = d.addr(addr), d.hash(codeHash)
	c.Optimization, c.FullMatch = opt == 1, full == 1
	if runs.Valid {
		c.OptimizerRuns = &runs.Int64
	}
	c.ConstructorArgs, c.CreationCode = args, creation
	return &c, d.err
}

// withSources reads the additional sources of c.
func (s *Store) withSources(ctx context.Context, c *explorer.VerifiedContract) (*explorer.VerifiedContract, error) {
	rows, err := s.db.QueryContext(ctx, s.d.rebind(`SELECT file_path, content FROM verified_sources WHERE address = ? ORDER BY file_path`), addrKey(c.Address))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var f explorer.SourceFile
		if err := rows.Scan(&f.Path, &f.Content); err != nil {
			return nil, err
		}
		c.Sources = append(c.Sources, f)
	}
	return c, rows.Err()
}

// VerifiedContract implements explorer.ContractStore.
func (s *Store) VerifiedContract(ctx context.Context, addr common.Address) (*explorer.VerifiedContract, error) {
	c, err := one(ctx, s, s.scanVerified, `SELECT `+verifiedCols+` FROM verified_contracts WHERE address = ?`, addrKey(addr))
	if err != nil {
		return nil, err
	}
	return s.withSources(ctx, c)
}

// VerifiedTwin implements explorer.ContractStore: the earliest verification
// of the same code.
func (s *Store) VerifiedTwin(ctx context.Context, codeHash common.Hash) (*explorer.VerifiedContract, error) {
	c, err := one(ctx, s, s.scanVerified, `SELECT `+verifiedCols+` FROM verified_contracts WHERE code_hash = ? ORDER BY id LIMIT 1`, key(codeHash[:]))
	if err != nil {
		return nil, err
	}
	return s.withSources(ctx, c)
}

// VerifiedContracts implements explorer.ContractStore (without sources).
func (s *Store) VerifiedContracts(ctx context.Context, q, language string, beforeID int64, limit int) ([]explorer.VerifiedContract, error) {
	where, args := []string{"1 = 1"}, []any{}
	if beforeID > 0 {
		where, args = append(where, "id < ?"), append(args, beforeID)
	}
	if q != "" {
		// LIKE with the wildcards of q escaped.
		esc := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(strings.ToLower(q))
		where, args = append(where, `name_lower LIKE ? ESCAPE '\'`), append(args, "%"+esc+"%")
	}
	if language != "" {
		where, args = append(where, "language = ?"), append(args, language)
	}
	return many(ctx, s, s.scanVerified, `SELECT `+verifiedCols+` FROM verified_contracts WHERE `+strings.Join(where, " AND ")+
		` ORDER BY id DESC LIMIT ?`, append(args, limit)...)
}

// ContractABIs implements explorer.ContractStore.
func (s *Store) ContractABIs(ctx context.Context, addrs []common.Address) (map[common.Address]explorer.ContractABI, error) {
	out := make(map[common.Address]explorer.ContractABI, len(addrs))
	if len(addrs) == 0 {
		return out, nil
	}
	args := distinctKeys(addrs)
	rows, err := s.db.QueryContext(ctx, s.d.rebind(`SELECT address, name, abi FROM verified_contracts WHERE address IN (?`+
		strings.Repeat(", ?", len(args)-1)+`)`), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var a, name, abi string
		if err := rows.Scan(&a, &name, &abi); err != nil {
			return nil, err
		}
		out[common.HexToAddress(a)] = explorer.ContractABI{Name: name, ABI: abi}
	}
	return out, rows.Err()
}

// ContractCounts implements explorer.ContractStore. A contract is new when
// the block that first touched it is from sinceUnix on.
func (s *Store) ContractCounts(ctx context.Context, sinceUnix int64) (*explorer.ContractCounts, error) {
	var c explorer.ContractCounts
	err := s.db.QueryRowContext(ctx, s.d.rebind(`SELECT
		(SELECT COUNT(*) FROM addresses WHERE is_contract = 1),
		(SELECT COUNT(*) FROM addresses a JOIN blocks b ON b.number = a.first_seen WHERE a.is_contract = 1 AND b.timestamp >= ?),
		(SELECT COUNT(*) FROM verified_contracts),
		(SELECT COUNT(*) FROM verified_contracts WHERE verified_at >= ?)`), sinceUnix, sinceUnix).
		Scan(&c.Contracts, &c.NewContracts, &c.Verified, &c.NewVerified)
	return &c, err
}
