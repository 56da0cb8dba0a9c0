package generator

import (
	"path"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/opennumerology/numerology/content"
)

// TestCardFields checks that CardFields names every content field a share card shows, so
// that the loader checks each against the cards' fonts: with a mark appended to every
// other text of the content, no card holds the mark; and each field CardFields names does
// reach a card.
func TestCardFields(t *testing.T) {
	c, err := LoadContent(content.Embedded(), "content")
	if err != nil {
		t.Fatal(err)
	}
	const mark = "\ue000"
	listed := map[string]bool{} // the listed fields met, as "pattern: field"
	markTexts(reflect.ValueOf(c).Elem(), "", "", func(file, field string) bool {
		for pattern, fields := range CardFields {
			if ok, _ := path.Match(pattern, file); ok && slices.Contains(fields, field) {
				listed[pattern+": "+field] = true
				return false
			}
		}
		return true
	}, mark)
	s, err := NewSite(c, "https://numerology.example")
	if err != nil {
		t.Fatal(err)
	}
	p := &pageRenderer{s: s}
	pages := p.pages()
	home := pages[slices.IndexFunc(pages, func(pg page) bool { return pg.file == HomePage })]
	for _, pg := range pages {
		_, card := p.cardOf(pg, home)
		for _, text := range []string{card.Site, card.Title, card.Subtitle, card.Mark, card.Footer} {
			if strings.Contains(text, mark) {
				t.Errorf("%s: its card shows %q, from a field CardFields does not list", pg.file, text)
			}
		}
	}
	for pattern, fields := range CardFields {
		for _, f := range fields {
			if !listed[pattern+": "+f] {
				t.Errorf("CardFields lists %s: %s, which the content has no text for", pattern, f)
			}
		}
	}
}

// notText are the content's strings that are keys, addresses or dates, not texts a page
// could show: a mark would break the content rather than show where it goes.
var notText = []string{"key", "level", "site_url", "support_email", "born", "emoji"}

// markTexts appends mark to each text below v that mark says to, field being its path in
// its file as CardFields writes it (tags of yaml, else the field's name in snake case).
func markTexts(v reflect.Value, file, field string, want func(file, field string) bool, mark string) {
	files := map[string]string{"Site": "site.yaml", "LifePaths": "life-path/1.yaml", "Arcana": "arcana.yaml",
		"Positions": "positions.yaml", "Square": "square.yaml", "Compatibility": "compatibility.yaml"}
	switch v.Kind() {
	case reflect.String:
		if !slices.Contains(notText, field[strings.LastIndex(field, ".")+1:]) && want(file, field) {
			v.SetString(v.String() + mark)
		}
	case reflect.Slice:
		for i := range v.Len() {
			f := field + "[*]"
			if file == "life-path/1.yaml" && field == "" {
				f = "" // one file per number
			}
			markTexts(v.Index(i), file, f, want, mark)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			sf := v.Type().Field(i)
			name, _, _ := strings.Cut(sf.Tag.Get("yaml"), ",")
			if name == "" {
				name = snake(sf.Name)
			}
			f, fl := field, file
			if file == "" {
				fl = files[sf.Name]
			} else if f == "" {
				f = name
			} else {
				f += "." + name
			}
			markTexts(v.Field(i), fl, f, want, mark)
		}
	}
}

// snake writes a Go field name in snake case: ShortDescription → short_description.
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}
