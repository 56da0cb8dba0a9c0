package generator

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	nethtml "golang.org/x/net/html"
)

// maxTitle is the longest page title, in characters, that a search result shows whole;
// html-validate's long-title rule uses the same limit.
const maxTitle = 70

// TestPagesLandmarksAndTitles applies to every HTML page of a generated tree the two
// html-validate rules the Nu Html Checker does not: a title of at most 70 characters
// (long-title), and landmarks of one role told apart by unique, non-empty names
// (unique-landmark).
func TestPagesLandmarksAndTitles(t *testing.T) {
	_, tree := sharedTree(t)
	var files []string
	err := filepath.WalkDir(tree, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(p) == ".html" {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 17 {
		t.Fatalf("only %d pages in the tree", len(files))
	}
	for _, f := range files {
		rel, _ := filepath.Rel(tree, f)
		t.Run(filepath.ToSlash(rel), func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, problem := range checkPage(t, b) {
				t.Error(problem)
			}
		})
	}
}

// TestCheckPage checks that checkPage finds what it must.
func TestCheckPage(t *testing.T) {
	long := strings.Repeat("я", maxTitle+1)
	tests := []struct {
		name, page string
		want       []string // problems expected, as substrings
	}{
		{"valid", `<title>Т</title><header></header><nav aria-label="А"></nav><main><header></header><nav aria-label="Б"></nav>
			<section></section><section></section><section aria-labelledby="h"><h2 id="h">Х</h2></section></main><footer></footer>`, nil},
		{"long title", "<title>" + long + "</title>", []string{"title has 71 characters"}},
		{"title of 70", "<title>" + long[len("я"):] + "</title>", nil},
		{"no title", "<p>x</p>", []string{"no title"}},
		{"two navs, one unnamed", `<title>Т</title><nav aria-label="А"></nav><nav></nav>`, []string{`navigation landmark has no name`}},
		{"two regions, one name", `<title>Т</title><section aria-labelledby="h"><h2 id="h">Маршруты</h2>
			<div role="region" aria-labelledby="h"></div></section>`, []string{`2 region landmarks are named "Маршруты"`}},
		{"aria-label against a heading", `<title>Т</title><section aria-labelledby="h"><h2 id="h">Коды</h2></section><section aria-label="Коды"></section>`,
			[]string{`2 region landmarks are named "Коды"`}},
		{"banners", `<title>Т</title><header></header><div role="banner"></div>`, []string{"banner landmark has no name", "banner landmark has no name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := checkPage(t, []byte(tt.page))
			if len(got) != len(tt.want) {
				t.Fatalf("problems = %q, want %d like %q", got, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %q, want %q", got[i], w)
				}
			}
		})
	}
}

// checkPage returns what a page breaks of the long-title and unique-landmark rules.
func checkPage(t *testing.T, page []byte) []string {
	t.Helper()
	doc, err := nethtml.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	var problems []string
	byID := map[string]*nethtml.Node{}
	var title *nethtml.Node
	type landmark struct {
		node *nethtml.Node
		role string
	}
	var landmarks []landmark
	var walk func(n *nethtml.Node, inside bool)
	walk = func(n *nethtml.Node, inside bool) {
		if n.Type == nethtml.ElementNode {
			if id := attr(n, "id"); id != "" {
				byID[id] = n
			}
			if n.Data == "title" && title == nil {
				title = n
			}
			if role := landmarkRole(n, inside); role != "" {
				landmarks = append(landmarks, landmark{n, role})
			}
			switch n.Data {
			case "article", "aside", "main", "nav", "section":
				inside = true
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inside)
		}
	}
	walk(doc, false)

	if title == nil {
		problems = append(problems, "the page has no title")
	} else if n := utf8.RuneCountInString(textOf(title)); n > maxTitle {
		problems = append(problems, fmt.Sprintf("the title has %d characters, more than %d: %s", n, maxTitle, textOf(title)))
	}

	name := func(n *nethtml.Node) string {
		if l := attr(n, "aria-label"); l != "" {
			return strings.TrimSpace(l)
		}
		var parts []string
		for _, id := range strings.Fields(attr(n, "aria-labelledby")) {
			if ref := byID[id]; ref != nil {
				parts = append(parts, textOf(ref))
			}
		}
		return strings.TrimSpace(strings.Join(parts, " "))
	}
	byRole := map[string][]*nethtml.Node{}
	var roles []string
	for _, l := range landmarks {
		if byRole[l.role] == nil {
			roles = append(roles, l.role)
		}
		byRole[l.role] = append(byRole[l.role], l.node)
	}
	for _, role := range roles {
		nodes := byRole[role]
		if len(nodes) < 2 {
			continue
		}
		count := map[string]int{}
		for _, n := range nodes {
			count[name(n)]++
		}
		for _, n := range nodes {
			nm := name(n)
			switch {
			case nm == "" && (n.Data == "form" || n.Data == "section") && attr(n, "role") == "":
				// An unnamed form or section is no landmark at all.
			case nm == "":
				problems = append(problems, fmt.Sprintf("a %s landmark has no name, and the page has %d: <%s>", role, len(nodes), n.Data))
			case count[nm] > 1:
				problems = append(problems, fmt.Sprintf("%d %s landmarks are named %q", count[nm], role, nm))
				count[nm] = 0 // report a name once
			}
		}
	}
	return problems
}

// landmarkRole returns the landmark role of an element, as html-validate computes it, or
// "". inside says whether the element is inside article, aside, main, nav or section,
// where header and footer are no landmarks.
func landmarkRole(n *nethtml.Node, inside bool) string {
	if role := attr(n, "role"); role != "" {
		switch role {
		case "complementary", "contentinfo", "form", "banner", "main", "navigation", "region":
			return role
		}
		return ""
	}
	switch n.Data {
	case "aside":
		return "complementary"
	case "footer":
		if !inside {
			return "contentinfo"
		}
	case "header":
		if !inside {
			return "banner"
		}
	case "form":
		return "form"
	case "main":
		return "main"
	case "nav":
		return "navigation"
	case "section":
		return "region" // an unnamed one is no landmark: checkPage lets it pass
	}
	return ""
}

func attr(n *nethtml.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// textOf returns the text of a node with runs of white space collapsed.
func textOf(n *nethtml.Node) string {
	var b strings.Builder
	var walk func(*nethtml.Node)
	walk = func(n *nethtml.Node) {
		if n.Type == nethtml.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}
