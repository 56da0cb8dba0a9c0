package assetsignore

// Why a file the worker reads would be missing from a Workers upload.
const (
	MissingUnlisted = "unlisted" // the manifest does not list it, so no deploy uploads it
	MissingIgnored  = "ignored"  // .assetsignore leaves it out
	MissingEdge     = "edge"     // edge.json lacks what the worker reads from it
)

// Missing is one thing the worker reads that an upload of the tree would lack.
type Missing struct {
	Kind   string // MissingUnlisted, MissingIgnored or MissingEdge
	File   string // the tree path (edge.json for MissingEdge)
	Detail string // what is missing, for MissingEdge
	Rule   *Rule  // the rule that leaves File out, for MissingIgnored
}

func (m Missing) String() string {
	switch m.Kind {
	case MissingUnlisted:
		return m.File + " is not in the tree's manifest"
	case MissingIgnored:
		return m.File + " is left out by " + m.Rule.String()
	}
	return m.File + " " + m.Detail
}

// Check returns, in the order of files, what of files a Workers upload would lack when ig
// decides what is left out: each file listed reports unlisted (MissingUnlisted: no deploy
// uploads what the manifest does not list), and each file ig ignores, with the rule
// (MissingIgnored). files are the files the worker reads (the tree's manifest derives them
// from its edge config); the caller adds what the edge config itself lacks (MissingEdge).
// The error is the matcher's (ErrTooMuchWork).
func Check(files []string, listed func(path string) bool, ig *Matcher) ([]Missing, error) {
	var out []Missing
	for _, f := range files {
		if !listed(f) {
			out = append(out, Missing{Kind: MissingUnlisted, File: f})
			continue
		}
		r, err := ig.Why(f)
		if err != nil {
			return nil, err
		}
		if r != nil {
			out = append(out, Missing{Kind: MissingIgnored, File: f, Rule: r})
		}
	}
	return out, nil
}
