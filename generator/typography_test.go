package generator

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	nethtml "golang.org/x/net/html"
)

func TestTypeset(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"dash", "<p>Путь — это выбор.</p>", "<p>Путь&nbsp;— это выбор.</p>"},
		{"dash after an element", "<li><strong>Ломоносов</strong> — учёный</li>", "<li><strong>Ломоносов</strong>&nbsp;— учёный</li>"},
		{"dash already bound", "<p>адрес&nbsp;— <code>x</code></p>", "<p>адрес&nbsp;— <code>x</code></p>"},
		{"dash without spaces", "<p>1990—2000, A —B</p>", "<p>1990—2000, A —B</p>"},
		{"dash after a line break", "<p>слово\n  — слово</p>", "<p>слово\n  — слово</p>"},
		{"en dash left alone", "<p>1900 – 2100</p>", "<p>1900 – 2100</p>"},
		{"one-letter preposition", "<p>в доме и в саду</p>", "<p>в&nbsp;доме и&nbsp;в&nbsp;саду</p>"},
		{"capital at a sentence start", "<p>В нём. А потом. Я знаю.</p>", "<p>В&nbsp;нём. А&nbsp;потом. Я&nbsp;знаю.</p>"},
		{"two-letter words", "<p>не за что, ни на что, но из дома от мамы по дороге со мной</p>",
			"<p>не&nbsp;за&nbsp;что, ни&nbsp;на&nbsp;что, но&nbsp;из&nbsp;дома от&nbsp;мамы по&nbsp;дороге со&nbsp;мной</p>"},
		{"after an opening quote or bracket", "<p>«в пути» (о себе)</p>", "<p>«в&nbsp;пути» (о&nbsp;себе)</p>"},
		{"after an escaped quote", "<p>&#34;и так&#34;</p>", "<p>&#34;и&nbsp;так&#34;</p>"},
		{"inside a longer word", "<p>вот она из-за того, понедельник</p>", "<p>вот она из-за того, понедельник</p>"},
		{"letters glued to the word", "<p>Нов я</p>", "<p>Нов я</p>"},
		{"at the end of a text node", "<p>ссылка с <code>rel</code></p>", "<p>ссылка с&nbsp;<code>rel</code></p>"},
		{"before a line break", "<p>и\n  дальше</p>", "<p>и\n  дальше</p>"},
		{"several spaces collapse into one", "<p>в   доме</p>", "<p>в&nbsp;доме</p>"},
		{"particles", "<p>такая же важная, было ли так, если бы знать</p>", "<p>такая&nbsp;же важная, было&nbsp;ли так, если&nbsp;бы знать</p>"},
		{"particle inside a word", "<p>вот жена же-же</p>", "<p>вот жена же-же</p>"},
		{"latin letters left alone", "<p>CC BY 4.0, a b</p>", "<p>CC BY 4.0, a b</p>"},
		{"attributes untouched", `<a title="в доме — да" href="/a b">в доме</a>`, `<a title="в доме — да" href="/a b">в&nbsp;доме</a>`},
		{"pre, code, kbd, samp untouched", "<pre>в доме — да</pre><code>и так</code><kbd>в a</kbd><samp>с b</samp>",
			"<pre>в доме — да</pre><code>и так</code><kbd>в a</kbd><samp>с b</samp>"},
		{"code inside pre untouched", "<pre class=\"code\"><code>«А», Б — В</code></pre> и всё", "<pre class=\"code\"><code>«А», Б — В</code></pre> и&nbsp;всё"},
		{"script and style untouched", `<script type="application/json">{"a": "в доме — да"}</script><style>a { b: c }</style>`,
			`<script type="application/json">{"a": "в доме — да"}</script><style>a { b: c }</style>`},
		{"title untouched", "<head><title>Число — в пути</title></head>", "<head><title>Число — в пути</title></head>"},
		{"noscript is typeset as HTML", `<noscript><p title="в а">в JSON: <code>/a/{в б}</code>, например</p></noscript>`,
			`<noscript><p title="в а">в&nbsp;JSON: <code>/a/{в б}</code>, например</p></noscript>`},
		{"URL text", "<p>Источник: <a href=\"https://x.example/a\">https://x.example/a</a> — он</p>",
			"<p>Источник: <a href=\"https://x.example/a\">https://x.example/a</a>&nbsp;— он</p>"},
		{"comments and doctype kept", "<!doctype html><!-- в доме — да --><p>x</p>", "<!doctype html><!-- в доме — да --><p>x</p>"},
		{"lone ampersand", "<p>a &amp; в доме & и</p>", "<p>a &amp; в&nbsp;доме & и</p>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(typeset([]byte(tt.in)))
			if got != tt.want {
				t.Errorf("typeset(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			if again := string(typeset([]byte(got))); again != got {
				t.Errorf("typeset is not idempotent: %q → %q", got, again)
			}
		})
	}
}

// TestTypesetPages renders every page with and without the typography step and checks
// that the step changed nothing but plain spaces of text outside code, into non-breaking
// ones, and that the rules hold on what it produced.
func TestTypesetPages(t *testing.T) {
	s := testSite(t)
	p, err := newPageRenderer(s)
	if err != nil {
		t.Fatal(err)
	}
	pages := p.pages()
	if len(pages) < 17 {
		t.Fatalf("only %d pages", len(pages))
	}
	bound := 0
	for _, pg := range pages {
		t.Run(pg.file, func(t *testing.T) {
			d := p.base
			d.Title, d.Description, d.Path = pg.title, pg.description, pg.path
			if pg.fill != nil {
				if err := pg.fill(&d); err != nil {
					t.Fatal(err)
				}
			}
			final, err := p.html(pg.template, d)
			if err != nil {
				t.Fatal(err)
			}
			raw, err := p.execute(pg.template, d)
			if err != nil {
				t.Fatal(err)
			}
			bound += strings.Count(string(final), nbsp) - strings.Count(string(raw), nbsp)
			a, b := pageTokens(t, raw), pageTokens(t, final)
			if len(a) != len(b) {
				t.Fatalf("typesetting changed the number of tokens: %d → %d", len(a), len(b))
			}
			for i := range a {
				x, y := a[i], b[i]
				if x.text != y.text || x.skipped != y.skipped {
					t.Fatalf("token %d changed kind: %+v → %+v", i, x, y)
				}
				if !x.text || x.skipped {
					if x.raw != y.raw {
						t.Errorf("typesetting changed markup or code: %q → %q", x.raw, y.raw)
					}
					continue
				}
				// Text: only plain spaces may have become &nbsp;.
				if normSpaces(x.raw) != normSpaces(y.raw) {
					t.Errorf("typesetting changed more than spaces: %q → %q", x.raw, y.raw)
				}
				for _, bad := range unboundSpaces(y.raw) {
					t.Errorf("text keeps a breakable space: %q", bad)
				}
			}
			if again := typeset(final); !bytes.Equal(again, final) {
				t.Error("typesetting the page again changes it")
			}
		})
	}
	if bound < 1000 {
		t.Errorf("the typography step bound only %d spaces over all pages", bound)
	}
}

// TestTypesetLeavesJSONWithoutEntities checks that no JSON file of a generated tree (records,
// errors, the index, the OpenAPI document) has the pages' &nbsp; or an escaped no-break
// space: the step is for pages only. The texts carry U+00A0 itself (texttypography.go).
func TestTypesetLeavesJSONWithoutEntities(t *testing.T) {
	_, tree := sharedTree(t)
	n := 0
	err := filepath.WalkDir(tree, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".json" {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n++
		if bytes.Contains(b, []byte(nbsp)) || bytes.Contains(b, []byte(`\u00a0`)) {
			rel, _ := filepath.Rel(tree, p)
			t.Errorf("%s has a non-breaking space as an entity or an escape", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 1000 {
		t.Fatalf("only %d JSON files checked", n)
	}
}

// pageToken is one token of a page: its raw bytes, whether it is text, and whether that
// text is inside an element typeset leaves alone.
type pageToken struct {
	raw           string
	text, skipped bool
}

func pageTokens(t *testing.T, page []byte) []pageToken {
	t.Helper()
	var out []pageToken
	z := nethtml.NewTokenizer(bytes.NewReader(page))
	skip := 0
	for {
		tt := z.Next()
		if tt == nethtml.ErrorToken {
			return out
		}
		tok := pageToken{raw: string(z.Raw()), text: tt == nethtml.TextToken, skipped: skip > 0}
		if tt == nethtml.StartTagToken || tt == nethtml.EndTagToken {
			name, _ := z.TagName()
			if skipText[string(name)] {
				if tt == nethtml.StartTagToken {
					skip++
				} else {
					skip--
				}
			}
			if string(name) == "noscript" {
				tok.skipped = true // its raw text is compared whole; TestTypeset covers it
			}
		}
		out = append(out, tok)
	}
}

// normSpaces replaces &nbsp; by a space and collapses runs of spaces: two texts that
// differ only in bound spaces have the same normSpaces.
func normSpaces(s string) string {
	s = strings.ReplaceAll(s, nbsp, " ")
	for strings.Contains(s, "  ") {
		s = strings.ReplaceAll(s, "  ", " ")
	}
	return s
}

// Breakable spaces the rules forbid, found independently of typesetText: before a spaced
// em dash, after a short word of the list that starts a word, before a particle.
var (
	breakableBeforeDash = regexp.MustCompile(`[^\s] +—(\s|$)`)
	breakableAfterShort = regexp.MustCompile(`(?i)(^|[\s«„“"'(\[]|&nbsp;|&#34;|&#39;)(` + wordList(shortWordsAfter) + `) +([^\s]|$)`)
	breakableBeforePart = regexp.MustCompile(`(?i)[^\s] +(` + wordList(particlesBefore) + `)([^\pL-]|$)`)
)

func wordList(m map[string]bool) string {
	var words []string
	for w := range m {
		words = append(words, w)
	}
	return strings.Join(words, "|")
}

// unboundSpaces returns the places of a typeset text that still break where they must not.
func unboundSpaces(text string) []string {
	var out []string
	for _, re := range []*regexp.Regexp{breakableBeforeDash, breakableAfterShort, breakableBeforePart} {
		out = append(out, re.FindAllString(text, -1)...)
	}
	return out
}
