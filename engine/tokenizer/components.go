package tokenizer

import (
	"encoding/json"
	"fmt"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// typed is the "type" tag every tokenizers component carries.
type typed struct {
	Type string `json:"type"`
}

// decodeSection decodes raw (which may be empty or null) into v; present reports whether
// the section is non-null.
func decodeSection(raw, name string, v any) (present bool, err error) {
	raw = strings.TrimSpace(raw)
	if raw == "" || raw == "null" {
		return false, nil
	}
	if err := json.Unmarshal([]byte(raw), v); err != nil {
		return true, fmt.Errorf("%s: %w", name, err)
	}
	return true, nil
}

// parseNormalizer accepts null, a Unicode normal form, or a Sequence of them.
func parseNormalizer(raw string) ([]norm.Form, error) {
	var n struct {
		Type        string            `json:"type"`
		Normalizers []json.RawMessage `json:"normalizers"`
	}
	present, err := decodeSection(raw, "normalizer", &n)
	if err != nil || !present {
		return nil, err
	}
	forms := map[string]norm.Form{"NFC": norm.NFC, "NFD": norm.NFD, "NFKC": norm.NFKC, "NFKD": norm.NFKD}
	if f, ok := forms[n.Type]; ok {
		return []norm.Form{f}, nil
	}
	if n.Type != "Sequence" {
		return nil, fmt.Errorf("normalizer: unsupported type %q", n.Type)
	}
	var seq []norm.Form
	for i, r := range n.Normalizers {
		var c typed
		if err := json.Unmarshal(r, &c); err != nil {
			return nil, fmt.Errorf("normalizer.normalizers[%d]: %w", i, err)
		}
		f, ok := forms[c.Type]
		if !ok {
			return nil, fmt.Errorf("normalizer.normalizers[%d]: unsupported type %q", i, c.Type)
		}
		seq = append(seq, f)
	}
	return seq, nil
}

// byteLevelConfig is a ByteLevel pre-tokenizer, post-processor or decoder.
type byteLevelConfig struct {
	Type           string `json:"type"`
	AddPrefixSpace bool   `json:"add_prefix_space"`
	UseRegex       bool   `json:"use_regex"`
}

// checkPreTokenizer requires Sequence[Split(qwen2Pattern, Isolated), ByteLevel(no regex,
// no prefix space)], the only pre-tokenization implemented here.
func checkPreTokenizer(raw string) error {
	var p struct {
		Type          string            `json:"type"`
		Pretokenizers []json.RawMessage `json:"pretokenizers"`
	}
	present, err := decodeSection(raw, "pre_tokenizer", &p)
	if err != nil {
		return err
	}
	if !present || p.Type != "Sequence" || len(p.Pretokenizers) != 2 {
		return fmt.Errorf("pre_tokenizer: unsupported (want a Sequence of the Qwen2 Split and ByteLevel)")
	}
	var split struct {
		Type    string `json:"type"`
		Pattern struct {
			Regex *string `json:"Regex"`
		} `json:"pattern"`
		Behavior string `json:"behavior"`
		Invert   bool   `json:"invert"`
	}
	if err := json.Unmarshal(p.Pretokenizers[0], &split); err != nil {
		return fmt.Errorf("pre_tokenizer.pretokenizers[0]: %w", err)
	}
	if split.Type != "Split" || split.Pattern.Regex == nil || *split.Pattern.Regex != qwen2Pattern ||
		split.Behavior != "Isolated" || split.Invert {
		return fmt.Errorf("pre_tokenizer.pretokenizers[0]: unsupported (want Split with the Qwen2 regex, Isolated, not inverted)")
	}
	var bl byteLevelConfig
	if err := json.Unmarshal(p.Pretokenizers[1], &bl); err != nil {
		return fmt.Errorf("pre_tokenizer.pretokenizers[1]: %w", err)
	}
	if bl.Type != "ByteLevel" || bl.AddPrefixSpace || bl.UseRegex {
		return fmt.Errorf("pre_tokenizer.pretokenizers[1]: unsupported (want ByteLevel without prefix space or regex)")
	}
	return nil
}

// checkByteLevel requires a ByteLevel component (or null where allowed). A ByteLevel
// post-processor only trims offsets, so it adds no ids.
func checkByteLevel(raw, name string, nullOK bool) error {
	var bl byteLevelConfig
	present, err := decodeSection(raw, name, &bl)
	if err != nil {
		return err
	}
	if (!present && !nullOK) || (present && bl.Type != "ByteLevel") {
		return fmt.Errorf("%s: unsupported type %q (want ByteLevel)", name, bl.Type)
	}
	return nil
}
