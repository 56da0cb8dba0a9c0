package generator

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/opennumerology/numerology/content"
)

func TestTypesetPlain(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"short words and a dash", "Четвёрка — число фундамента, и в этом числе", "Четвёрка\u00a0— число фундамента, и\u00a0в\u00a0этом числе"},
		{"particle", "такая же важная", "такая\u00a0же важная"},
		{"quotes and brackets", "«в пути» (о себе)", "«в\u00a0пути» (о\u00a0себе)"},
		{"HTML characters stay as they are", `a & b <в доме> "и так"`, "a & b <в доме> \"и\u00a0так\""},
		{"a reference-like text stays", "&nbsp; в &amp;", "&nbsp; в\u00a0&amp;"},
		{"paragraphs and line ends", "и\n\nв доме", "и\n\nв\u00a0доме"},
		{"a no-break space of the content kept", "Пётр\u00a0I и Екатерина\u00a0II", "Пётр\u00a0I и\u00a0Екатерина\u00a0II"},
		{"a number and the word after it", "с 1900 по 1999 год, 22 аркана, 1–9 и 11", "с\u00a01900\u00a0по\u00a01999\u00a0год, 22\u00a0аркана, 1–9\u00a0и\u00a011"},
		{"a number before punctuation or a number", "цифры 1 5 5, итог 30.", "цифры 1 5 5, итог 30."},
		{"nothing to do", "Строитель", "Строитель"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := typesetPlain(tt.in)
			if got != tt.want {
				t.Errorf("typesetPlain(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			if again := typesetPlain(got); again != got {
				t.Errorf("not idempotent: %q → %q", got, again)
			}
		})
	}
}

// TestContentTypeset checks that LoadContent hands out every text typeset and nothing else
// changed: each string of the loaded content is typesetPlain of the file's string, the site's
// settings are as written, and the texts did change (a walk that reached nothing would pass
// the first check).
func TestContentTypeset(t *testing.T) {
	plain, err := content.Load(content.Embedded(), "content", ContentRules())
	if err != nil {
		t.Fatal(err)
	}
	typeset := testSite(t).Content
	if !reflect.DeepEqual(plain.Site, typeset.Site) {
		t.Error("the site's settings were typeset")
	}
	changed := 0
	var walk func(path string, p, q reflect.Value)
	walk = func(path string, p, q reflect.Value) {
		switch p.Kind() {
		case reflect.String:
			if want := typesetPlain(p.String()); q.String() != want {
				t.Errorf("%s = %q, want %q", path, q.String(), want)
			} else if want != p.String() {
				changed++
			}
		case reflect.Struct:
			for i := range p.NumField() {
				walk(path+"."+p.Type().Field(i).Name, p.Field(i), q.Field(i))
			}
		case reflect.Slice, reflect.Array:
			for i := range p.Len() {
				walk(path+"[]", p.Index(i), q.Index(i))
			}
		case reflect.Map:
			for _, k := range p.MapKeys() {
				walk(path+"{}", p.MapIndex(k), q.MapIndex(k))
			}
		case reflect.Pointer:
			if !p.IsNil() {
				walk(path, p.Elem(), q.Elem())
			}
		}
	}
	p, q := reflect.ValueOf(plain).Elem(), reflect.ValueOf(typeset).Elem()
	for i := range p.NumField() {
		if name := p.Type().Field(i).Name; name != "Site" {
			walk(name, p.Field(i), q.Field(i))
		}
	}
	if changed < 500 {
		t.Errorf("only %d texts changed by typesetting", changed)
	}
}

// TestRecordsCarryNoBreakSpaces checks a record of the tree: its texts hold U+00A0 where
// the rules bind («Четвёрка — число» keeps its dash with the word before it).
func TestRecordsCarryNoBreakSpaces(t *testing.T) {
	_, tree := sharedTree(t)
	b, err := os.ReadFile(filepath.Join(tree, filepath.FromSlash(route(RouteLifePath).FilePath([]int{4}))))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Четвёрка\u00a0— число фундамента", "Пётр\u00a0I"} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("the record of 4 lacks %q", want)
		}
	}
}
