package english

import "testing"

// TestClassify holds each intent in many phrasings, and requests that
// must stay searches although they look like something else.
func TestClassify(t *testing.T) {
	tests := map[Intent][]string{
		IntentSearch: {
			"DNA repair genes", "kinases", "zzqx flurble", "How many genes are on chromosome 1?",
			"How many protein-coding genes does 3D7 have?", "What genes are involved in translation?",
			"Which tRNA genes lie on chromosome 13?", "PF3D7_1133400 and PF3D7_0304600", "go:0006281 genes",
			"now also exclude chromosome 5", "undo that", "and chromosome 13 too", "use proteolysis instead",
			"Are there any rRNA genes on chromosome 5?", "help me find tRNA genes on chromosome 5",
			"genes annotated with GO:0009410", "What does PF3D7_1133400 have in common with genes on chromosome 5?",
			"Remove the transmembrane-domain step.", "Relax the minimum to 15 transmembrane domains.",
			"which gene is on chromosome 5 and codes for a kinase?", "which gene codes for a kinase on chromosome 5?",
			"which gene is involved in DNA repair?", "what does GO:0006281 share with GO:0006412?", "attachment of GPI anchor to protein on chr 13",
			// Controls are a follow-up the planner reads, not a refusal.
			"Test this strategy against my controls.", "genes in my list 'kinase screen' that are on chromosome 5",
		},
		IntentConfirm: {"yes", "Yes, go ahead and build it.", "ok, build it", "sure, go ahead", "build it please", "yes please", "do it", "go ahead",
			"ok", "great, build it", "sounds good, do it", "Looks good, build it",
			"spot on, go ahead", "alright, build it", "right then, run it", "exactly that, proceed", "absolutely, do it",
			"the plan is fine, run it", "approved", "brilliant, go build", "go ahead and execute", "that reads correctly, please build"},
		IntentDecline: {"no", "not yet", "not yet, thanks", "no, never mind", "cancel", "don't build it", "nope", "wait",
			"on second thought, not yet", "actually no, leave it unbuilt", "hold off, no", "on second thoughts, scrap it", "forget it"},
		IntentGeneQuestion: {
			"What does PF3D7_0708400 do?", "Tell me about PF3D7_0904400", "what is PF3D7_1406700?",
			"describe PF3D7_0930300", "What's the function of PF3D7_1133400?", "what do you know about PFI1475w",
			"which gene id belongs to T-complex protein 1 subunit alpha?", "which gene codes for haem oxygenase? I need its id",
			"PF3D7_1133400: which protein is that?", "AMA1 — which gene id?", "symbol for PF3D7_0930300?",
			"Which gene is apical membrane antigen 1?", "Tell me the annotated product for PF3D7_0930300.",
			"PF3D7_1411200: which chromosome, and what protein?", "PF10_0334 is a legacy identifier; which current gene does it map to?",
			"whats PF3D7_0930300", "PFI1475w: which gene is that now?", "Look up the old id PFA0005w", "what protein does PF3D7_1133400 make?",
			// By symbol.
			"PF3D7_0304600 = ?", "pf3d7_0304600 product?", "I keep seeing PF3D7_0304600 in my data. What protein is it?", "Which gene has the symbol MSP1?",
			"Could you tell me what PF3D7_0304600 encodes?", "Which gene is CSP?", "what does the AMA1 gene do?", "tell me about the Pfs25 gene", "what is kelch13?",
			// A gene id asked about in other words, or a gene's id asked for.
			"PF3D7_0930300 — tell me what it is", "Does PF3D7_0304600 lie on chromosome 3, and what is its product?",
			"PF3D7_1133400: product description", "annotation summary for PF3D7_0708400 please",
			"gene id of circumsporozoite protein", "MSP1 - gene id?", "what's the locus tag for AMA1",
			"remind me what PF3D7_0930300 is", "PF3D7_1011900 — which protein does it encode?", "what product is annotated for PF3D7_0304600?", "AMA1: what's its gene id?",
			"I have PFA0005w from an old paper. Which 3D7 gene does that correspond to these days?",
		},
		IntentGOQuestion: {"What is GO:0006281?", "what is meant by the GO term 'DNA repair'?", "Which biological process is GO:0006281?", "what does GO:0006281 mean?", "define GO:0006412", "What is DNA repair in GO terms?",
			"what does the GO term translation mean?", "Explain GO:0006260", "GO:0006260 — what process is that?",
			"What does glycolysis mean in the Gene Ontology?", "GO:0006412 = which process?", "Is translation a GO term? Which one?", "what is the GO definition of proteolysis", "How does GO define translation?",
			"please define the GO term DNA replication", "Could you explain the GO term 'proteolysis' for me?",
			"define nuclear division for me", "what's the GO id for DNA repair?", "explain what nuclear division means",
			"what does the term proteolysis stand for?"},
		IntentSearchQuestion: {"Which searches find genes by GO term?", "What searches are there for gene types?", "which search finds genes by location?",
			"Is there a search for signal peptides?", "do you have a search for transmembrane domains", "can I search by chromosome?"},
		IntentStrategyQuestion: {"how many did that remove?", "how many genes did the exclusion take away?", "count?",
			"how many genes is that?", "why did you choose that search?", "What did you offer me?", "which term did you use, and why?",
			"Summarize this conversation so far", "Analyze my current strategy.", "Diagnose my current strategy.",
			"Thanks. Can you tell me how many genes each step returns?", "what was the count?",
			"how many genes does each step have?", "what are the counts per step?", "walk me through the strategy",
			"what does every step find?", "explain my strategy", "what did dropping chromosome 4 cost, in genes?",
			"how many genes now?", "How many are there in total?", "how many genes do we have?",
			"show me the genes", "list them", "what is the second step?", "what are the steps?",
			"what did each step remove?", "so how many of them were on 13?", "how many genes did the exclusion remove?", "what did every filter take out",
		},
		IntentCapability: {"What can you do?", "help", "who are you?", "How does this work?"},
		IntentGeneTrace: {"which step drops PF3D7_1405400?", "Is PF3D7_0930300 in the result?", "does the strategy include PF3D7_1133400?",
			"where did I lose PF3D7_1405400", "why is PF3D7_0930300 missing?", "trace PF3D7_1133400 through the strategy"},
		IntentThanks: {"thanks!", "thank you very much", "great, perfect", "cool", "that's great, thanks", "thanks, that's all", "ok thanks, I'm done for now", "that's what I meant", "that's correct", "mm-hm, that matches what I had in mind"},
		IntentUnsupported: {
			"Please remember that I prefer tables", "Please remember for future sessions that I prefer the Su et al. dataset",
			"Which dataset do I prefer for gametocyte expression?", "Email me the gene list", "Which genes are in this image?",
			"Which genes are in this document?", "share this with my PI", "can you read my attachment?",
			"Save these as a gene set", "Save the genes of this strategy as a gene set named UAT G1.",
			"Run a PCA on the samples", "Open the 'Female and male gametocyte' study on PlasmoDB and run a PCA of the samples colored by sex.",
			"Optimize the SignalP version of the signal peptide search", "Compare the SignalP-6.0 and SignalP-4.1 versions of this search.",
			"Clear the current strategy by calling clear_strategy with confirm=true.",
			"Use the VectorBase blood-fed versus sugar-fed microarray experiment to find the matching Plasmodium falciparum genes.",
			"Take the gene list I uploaded and keep the genes with a signal peptide",
			"download these as a CSV", "export it to VEuPathDB", "share this with my PI", "now rename it to tRNA chr5",
			"Can I get this as a spreadsheet table?",
			"go back to the first version", "restore the original strategy", "can we return to the very first one?",
		},
		IntentOffTopic: {"What's the weather in Lisbon tomorrow?", "asdf qwerty", "Write me a haiku about mosquitoes",
			"What is a good recipe for banana bread?", "", "tell me a joke"},
	}
	for want, msgs := range tests {
		for _, m := range msgs {
			if got := Classify(m); got.Intent != want {
				t.Errorf("Classify(%q) = %s, want %s", m, got.Intent, want)
			}
		}
	}
	for msg, subject := range map[string]string{
		"What does PF3D7_0708400 do?":           "PF3D7_0708400",
		"what does go:0006281 mean?":            "GO:0006281",
		"What is DNA repair in GO terms?":       "DNA repair",
		"Which searches find genes by GO term?": "GO term",
		"explain what nuclear division means":   "nuclear division",
	} {
		if got := Classify(msg).Subject; got != subject {
			t.Errorf("Classify(%q).Subject = %q, want %q", msg, got, subject)
		}
	}
}
