// Package eventlog stores and carries the conversations' event streams:
// the durable log every turn appends to, and the ways its records reach
// the pages and clients that watch.
//
// A Log is the one writer of the events table (Append; a running turn's
// TurnLog queues its events into the same group commit); events are
// committed before they are published, so a subscriber never sees what a
// crash could take back. EncodeRow is the one encoder of event rows, used
// as well by the writes that append events inside their own transaction
// (a strategy change through InTransaction, a turn's start and end); it
// scrubs what jsonb refuses. A Broker delivers published records to the
// subscribers of their conversation in this process; a Fanout listens for
// what other processes appended (PostgreSQL LISTEN) and publishes it here;
// a Streamer joins a conversation's stored log after a sequence number to
// its live records, without a gap or a duplicate, for SSE and the
// protocols.
//
// The stream's contract (event types, their encoding, records) is
// internal/event, which links no storage; this package is where storage
// and transport of events live.
package eventlog
