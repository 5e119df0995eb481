// Package rules is Strategist's offline planner: an llm.Engine without a
// language model, so that a researcher with no API key still gets the whole
// product (plan, approve, a live delegated build, true counts). It is the
// default model when no key or base URL is configured.
//
// It plays every role through the same tools a model would call, and reads
// nothing but the llm.Request: the role (Request.Agent), the user message
// (and the researcher's message before it, for "and chromosome 13 too"),
// the tool results already in the history and the tools offered. Each call
// works out, from those alone, which calls it still needs and asks for them
// (independent calls in one response, which the agent loop runs
// concurrently), or answers with text. It never makes a call it has made
// before in the run, so a run always ends; a failed call is read and
// worked around (a text search instead of an unknown term) or reported,
// never retried blindly. It holds no state between calls and is
// deterministic: the same request and results give the same answer.
//
//   - planner: english.Parse reads the request into a tree of clauses joined by
//     INTERSECT, UNION and MINUS (the precedence rules are on english.Parse). Every
//     clause is mapped through the catalog tools: search_for_searches finds
//     the searches, get_search_parameters lists their parameters and, with
//     vocabulary_query, looks terms up in large vocabularies (GO terms, with
//     synonyms, plural forms and a looser look-up for typos), lookup_genes
//     resolves gene ids and symbols. Gene types and chromosomes are matched
//     against the listed values (typos within one or two edits are read and
//     said so). A phrase that names another search of the catalog builds
//     it, marked not evaluable offline; a value only the live site lists, or
//     an organism, strain or chromosome the catalog lacks, is refused with
//     the reason. A clause nothing fits is asked back: ask_researcher
//     offers the GO terms the vocabulary look-ups found for its words and
//     a text search marked approximate, and the turn ends with the
//     question; with nothing near it in the vocabularies, or when the
//     researcher asked for a text search, it becomes one, reported as
//     approximate. A follow-up ("now also exclude chromosome 5", "use
//     proteolysis instead", "undo that") reads the strategy with
//     get_strategy and reuses its steps in the plan. It then saves a
//     planning artifact, a delegation draft whose task contexts carry
//     {"searchName","parameters"}, requests the build, and says what it did.
//   - executor: an approved plan ("Build the approved plan:" and a JSON build
//     context) of two or more tasks goes to delegate_strategy_subtasks as
//     given; one task is created with create_step. A plain request is parsed
//     like the planner's and built with create_step and combine_steps. Then
//     validate_strategy and get_result_count, and a report of the counts the
//     catalog computed with their provenance, or what it said instead
//     ("count unavailable offline"): never a number it was not given.
//     Asked what the genes are enriched for ("GO enrichment of the
//     result"), it reads the strategy with get_strategy, runs enrich_step
//     on the root and reports the top terms with their counts and
//     Benjamini–Hochberg adjusted p-values as the tool gave them.
//   - subagent: create_step (transform_step when the task has an input) from
//     the task's context, then finish_subtask; if the catalog refuses some
//     values it tries once without them, then a text search for the task's
//     words, then gives up with a clear message. A task without a search in
//     its context is read like a request.
//   - summarizer: a digest of the history (requests, tools called, the last
//     answer), not a paraphrase.
//
// Everything it writes says that it is Strategist's offline planner and not
// a language model, and what it understood. Usage: it reports zero tokens,
// since it runs no model; nothing is estimated.
package rules
