package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"kleinbild/internal/safefile"
)

// tokenizerConfig holds the fields of tokenizer_config.json that change encoding.
type tokenizerConfig struct {
	PadToken           json.RawMessage `json:"pad_token"`
	SplitSpecialTokens bool            `json:"split_special_tokens"`
}

// applyConfig reads tokenizer_config.json if present: the pad token (a string or an
// {"content": ...} object) and split_special_tokens. Without the file, PadID is used.
func (t *Tokenizer) applyConfig(path string) error {
	data, err := safefile.ReadRegular(path, safefile.MaxConfigBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return t.checkID(t.pad, "pad id")
	}
	if err != nil {
		return err
	}
	return t.applyConfigJSON(data)
}

// applyConfigJSON applies the text of tokenizer_config.json (see applyConfig).
func (t *Tokenizer) applyConfigJSON(data []byte) error {
	var cfg tokenizerConfig
	if err := json.Unmarshal(data, &cfg); err != nil {
		return err
	}
	if cfg.SplitSpecialTokens {
		t.rawMatcher.skipSpecial = true
		t.normMatcher.skipSpecial = true
	}
	var pad string
	if len(cfg.PadToken) > 0 && string(cfg.PadToken) != "null" {
		if err := json.Unmarshal(cfg.PadToken, &pad); err != nil {
			var obj struct {
				Content string `json:"content"`
			}
			if err := json.Unmarshal(cfg.PadToken, &obj); err != nil {
				return fmt.Errorf("pad_token: want a string or an object with content: %w", err)
			}
			pad = obj.Content
		}
	}
	if pad == "" {
		return t.checkID(t.pad, "pad id")
	}
	id, ok := t.tokenID(pad)
	if !ok {
		return fmt.Errorf("pad_token %q is not in tokenizer.json", pad)
	}
	t.pad = id
	return nil
}

func (t *Tokenizer) checkID(id int, what string) error {
	if id < 0 || id >= len(t.tokens) || t.tokens[id] == "" {
		return fmt.Errorf("%s %d is not a token", what, id)
	}
	return nil
}

// tokenID looks a token up among the added tokens, then the vocabulary.
func (t *Tokenizer) tokenID(tok string) (int, bool) {
	for _, a := range t.addedTokens {
		if a.Content == tok {
			return a.ID, true
		}
	}
	if id := slices.Index(t.tokens, tok); id >= 0 {
		return id, true
	}
	return 0, false
}
