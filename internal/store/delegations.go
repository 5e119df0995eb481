package store

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"
)

// Delegation is one run of a delegation plan in a conversation: its goal,
// its normalised plan (the plan package's JSON, opaque here), status
// (running, completed, failed, cancelled, interrupted), token usage (JSON)
// and, when read with its nodes, the state of each node.
type Delegation struct {
	ID             string           `db:"id" json:"id"`
	ConversationID string           `db:"conversation_id" json:"conversationId"`
	TurnID         *string          `db:"turn_id" json:"turnId"`
	Goal           string           `db:"goal" json:"goal"`
	Plan           json.RawMessage  `db:"plan" json:"plan"`
	Status         DelegationStatus `db:"status" json:"status"`
	Usage          json.RawMessage  `db:"usage" json:"usage"`
	StartedAt      time.Time        `db:"started_at" json:"startedAt"`
	EndedAt        *time.Time       `db:"ended_at" json:"endedAt"`
	Nodes          []DelegationNode `db:"-" json:"nodes"`
}

// DelegationNode is the live state of one node of a delegation. Status is
// queued, running, done, failed, skipped, cancelled or timeout; Attempt
// counts the sub-agent runs started (0 for a node that never ran).
type DelegationNode struct {
	NodeID     string          `db:"node_id" json:"nodeId"`
	Position   int             `db:"position" json:"position"`
	Kind       string          `db:"kind" json:"kind"`
	Label      string          `db:"label" json:"label"`
	DependsOn  []string        `db:"depends_on" json:"dependsOn"`
	Operator   string          `db:"operator" json:"operator,omitempty"`
	Status     NodeStatus      `db:"status" json:"status"`
	Attempt    int             `db:"attempt" json:"attempt"`
	RootStepID string          `db:"root_step_id" json:"rootStepId,omitempty"`
	Error      string          `db:"error" json:"error,omitempty"`
	Usage      json.RawMessage `db:"usage" json:"usage"`
	StartedAt  *time.Time      `db:"started_at" json:"startedAt"`
	EndedAt    *time.Time      `db:"ended_at" json:"endedAt"`
}

// NewDelegation is a delegation about to start. Its nodes are stored in
// the order given (their position), all queued.
type NewDelegation struct {
	ConversationID string
	TurnID         string // "" when the delegation belongs to no turn
	Goal           string
	Plan           json.RawMessage
	Nodes          []NewDelegationNode
}

// NewDelegationNode is one node of a NewDelegation.
type NewDelegationNode struct {
	NodeID    string
	Kind      string // task, combine or step
	Label     string
	DependsOn []string
	Operator  string
}

// DelegationNodeUpdate is the whole mutable state of a node, written at
// each change: the scheduler owns it and writes what it holds.
type DelegationNodeUpdate struct {
	NodeID     string
	Status     NodeStatus
	Attempt    int
	RootStepID string
	Error      string
	Usage      json.RawMessage // nil keeps {}
	StartedAt  *time.Time
	EndedAt    *time.Time
}

const insertDelegationSQL = `
INSERT INTO delegations (conversation_id, turn_id, goal, plan)
SELECT c.id, $3::uuid, $4::text, $5::jsonb FROM conversations c WHERE c.id = $1 AND c.user_id = $2
RETURNING id, conversation_id, turn_id, goal, plan, status, usage, started_at, ended_at`

const insertDelegationNodeSQL = `
INSERT INTO delegation_nodes (delegation_id, node_id, position, kind, label, depends_on, operator)
VALUES ($1, $2, $3, $4, $5, $6, $7)`

// CreateDelegation stores a running delegation of a user's conversation
// with all its nodes queued, in one transaction. Another user's
// conversation is ErrNotFound.
func (db *DB) CreateDelegation(ctx context.Context, userID string, nd NewDelegation) (Delegation, error) {
	var d Delegation
	err := db.tx(ctx, "create delegation", func(tx pgx.Tx) error {
		var turnID *string
		if nd.TurnID != "" {
			turnID = &nd.TurnID
		}
		rows, _ := tx.Query(ctx, insertDelegationSQL, nd.ConversationID, userID, turnID, nd.Goal, nd.Plan)
		var err error
		if d, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Delegation]); err != nil {
			return err
		}
		batch := &pgx.Batch{}
		for i, n := range nd.Nodes {
			deps := n.DependsOn
			if deps == nil {
				deps = []string{}
			}
			batch.Queue(insertDelegationNodeSQL, d.ID, n.NodeID, i, n.Kind, n.Label, deps, n.Operator)
		}
		if err := tx.SendBatch(ctx, batch).Close(); err != nil {
			return err
		}
		d.Nodes, err = delegationNodes(ctx, tx, d.ID)
		return err
	})
	return d, err
}

const updateDelegationNodeSQL = `
UPDATE delegation_nodes n
SET status = $4, attempt = $5, root_step_id = $6, error = $7, usage = coalesce($8, n.usage),
    started_at = $9, ended_at = $10
FROM delegations d JOIN conversations c ON c.id = d.conversation_id
WHERE n.delegation_id = d.id AND d.id = $1 AND c.user_id = $2 AND n.node_id = $3`

// UpdateDelegationNode writes a node's state. A node of another user's
// delegation, or an unknown node, is ErrNotFound.
func (db *DB) UpdateDelegationNode(ctx context.Context, userID, delegationID string, u DelegationNodeUpdate) error {
	return db.UpdateDelegationNodes(ctx, userID, delegationID, []DelegationNodeUpdate{u})
}

// UpdateDelegationNodes writes the state of several nodes of a delegation
// in one transaction (one commit for the changes a scheduler accumulated
// while the previous write was in flight). Any node of another user's
// delegation, or unknown, is ErrNotFound and nothing is written.
func (db *DB) UpdateDelegationNodes(ctx context.Context, userID, delegationID string, us []DelegationNodeUpdate) error {
	if len(us) == 0 {
		return nil
	}
	return db.tx(ctx, "update delegation nodes", func(tx pgx.Tx) error {
		batch := &pgx.Batch{}
		for _, u := range us {
			var usage any
			if u.Usage != nil {
				usage = u.Usage
			}
			batch.Queue(updateDelegationNodeSQL, delegationID, userID, u.NodeID, u.Status, u.Attempt,
				u.RootStepID, u.Error, usage, u.StartedAt, u.EndedAt)
		}
		br := tx.SendBatch(ctx, batch)
		for range us {
			tag, err := br.Exec()
			if err != nil {
				br.Close()
				return err
			}
			if tag.RowsAffected() == 0 {
				br.Close()
				return ErrNotFound
			}
		}
		return br.Close()
	})
}

const finishDelegationSQL = `
UPDATE delegations d SET status = $3, usage = coalesce($4, d.usage), ended_at = now()
FROM conversations c
WHERE c.id = d.conversation_id AND d.id = $1 AND c.user_id = $2`

// FinishDelegation records how a delegation ended (completed, failed or
// cancelled) and its total usage.
func (db *DB) FinishDelegation(ctx context.Context, userID, delegationID string, status DelegationStatus, usage json.RawMessage) error {
	return db.tx(ctx, "finish delegation", func(tx pgx.Tx) error {
		var u any
		if usage != nil {
			u = usage
		}
		tag, err := tx.Exec(ctx, finishDelegationSQL, delegationID, userID, status, u)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return ErrNotFound
		}
		return nil
	})
}

const delegationColumns = `d.id, d.conversation_id, d.turn_id, d.goal, d.plan, d.status, d.usage, d.started_at, d.ended_at`

const latestDelegationSQL = `
SELECT ` + delegationColumns + `
FROM delegations d JOIN conversations c ON c.id = d.conversation_id
WHERE d.conversation_id = $1 AND c.user_id = $2
ORDER BY d.started_at DESC, d.id DESC LIMIT 1`

// LatestDelegation returns the most recent delegation of a user's
// conversation with its nodes in plan order, so a reloaded page shows the
// delegation as it stands; ErrNotFound when there is none.
func (db *DB) LatestDelegation(ctx context.Context, userID, conversationID string) (Delegation, error) {
	return db.readDelegation(ctx, "latest delegation", latestDelegationSQL, conversationID, userID)
}

const delegationSQL = `
SELECT ` + delegationColumns + `
FROM delegations d JOIN conversations c ON c.id = d.conversation_id
WHERE d.id = $1 AND c.user_id = $2`

// Delegation returns one of a user's delegations with its nodes.
func (db *DB) Delegation(ctx context.Context, userID, delegationID string) (Delegation, error) {
	return db.readDelegation(ctx, "delegation", delegationSQL, delegationID, userID)
}

// readDelegation reads a delegation and its nodes in one transaction, so
// the nodes belong to the same moment as the delegation row.
func (db *DB) readDelegation(ctx context.Context, op, query string, args ...any) (Delegation, error) {
	var d Delegation
	err := db.tx(ctx, op, func(tx pgx.Tx) error {
		rows, _ := tx.Query(ctx, query, args...)
		var err error
		if d, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Delegation]); err != nil {
			return err
		}
		d.Nodes, err = delegationNodes(ctx, tx, d.ID)
		return err
	})
	return d, err
}

const delegationNodesSQL = `
SELECT node_id, position, kind, label, depends_on, operator, status, attempt, root_step_id, error, usage, started_at, ended_at
FROM delegation_nodes WHERE delegation_id = $1 ORDER BY position`

func delegationNodes(ctx context.Context, tx pgx.Tx, delegationID string) ([]DelegationNode, error) {
	rows, _ := tx.Query(ctx, delegationNodesSQL, delegationID)
	return pgx.CollectRows(rows, pgx.RowToStructByName[DelegationNode])
}

const interruptDelegationsSQL = `
UPDATE delegations SET status = 'interrupted', ended_at = now()
WHERE turn_id = ANY($1::uuid[]) AND status = 'running'
RETURNING id`

const cancelInterruptedNodesSQL = `
UPDATE delegation_nodes SET status = 'cancelled', ended_at = coalesce(ended_at, now())
WHERE delegation_id = ANY($1::uuid[]) AND status IN ('queued', 'running')`

// InterruptDelegations ends the running delegations of turns a crash
// interrupted: each becomes interrupted and its queued or running nodes
// cancelled, in one transaction; nodes that ended keep their state. It is
// called at start-up recovery for the turns it marks interrupted, whoever
// owns them, and returns the number of delegations it ended.
func (db *DB) InterruptDelegations(ctx context.Context, turnIDs []string) (int, error) {
	if len(turnIDs) == 0 {
		return 0, nil
	}
	var n int
	err := db.tx(ctx, "interrupt delegations", func(tx pgx.Tx) error {
		rows, _ := tx.Query(ctx, interruptDelegationsSQL, turnIDs)
		ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		n = len(ids)
		if n == 0 {
			return nil
		}
		_, err = tx.Exec(ctx, cancelInterruptedNodesSQL, ids)
		return err
	})
	return n, err
}

// previousNodesSQL finds the latest delegation of a turn with the same plan
// that a stopped run left unfinished (interrupted when its process died,
// cancelled when it was handed back) or had completed, and returns its nodes
// as they stood.
// The node rows are written in the background, after the events, so a
// process that dies can leave a row behind its events: a node whose
// subagent_task_end done is in the log counts as done with that root, and
// its attempt is at least the last one the log started.
const previousNodesSQL = `
WITH d AS (
  SELECT d.id, d.conversation_id FROM delegations d JOIN conversations c ON c.id = d.conversation_id
  WHERE d.turn_id = $1 AND c.user_id = $2 AND d.plan = $3::jsonb AND d.status IN ('interrupted', 'cancelled', 'completed')
  ORDER BY d.started_at DESC LIMIT 1),
logged AS (
  SELECT e.payload->>'nodeId' AS node_id,
         max((e.payload->>'attempt')::int) FILTER (WHERE e.type = 'subagent_task_start') AS started,
         max(e.payload->>'rootStepId') FILTER (WHERE e.type = 'subagent_task_end' AND e.payload->>'status' = 'done') AS done_root
  FROM events e JOIN d ON e.conversation_id = d.conversation_id
  WHERE e.turn_id = $1 AND e.type IN ('subagent_task_start', 'subagent_task_end') AND e.payload->>'delegationId' = d.id::text
  GROUP BY 1)
SELECT n.node_id,
       CASE WHEN l.done_root IS NOT NULL THEN 'done' ELSE n.status END,
       greatest(n.attempt, coalesce(l.started, 0)),
       coalesce(l.done_root, n.root_step_id)
FROM delegation_nodes n JOIN d ON n.delegation_id = d.id
LEFT JOIN logged l ON l.node_id = n.node_id`

// PreviousNode is a node of a turn's previous, unfinished run of a plan.
type PreviousNode struct {
	Status     NodeStatus
	Attempt    int
	RootStepID string
}

// PreviousNodes returns, for a turn that resumes a delegation, the nodes of
// its previous run of the same plan (node id -> how it stood): a resumed
// delegation does not run the done ones again and retries the others. A
// delegation that completed before its turn's process stopped (the
// executor's last round not yet stored) counts too: its nodes are all done,
// and the resumed run carries the whole build instead of running it again
// on top of its own result. A failed one does not: the executor may
// delegate the same plan again on purpose. None is an empty map.
func (db *DB) PreviousNodes(ctx context.Context, userID, turnID string, plan json.RawMessage) (map[string]PreviousNode, error) {
	var out map[string]PreviousNode
	err := db.retry(ctx, func() error {
		out = map[string]PreviousNode{}
		rows, err := db.pool.Query(ctx, previousNodesSQL, turnID, userID, plan)
		if err != nil {
			return err
		}
		var node string
		var n PreviousNode
		_, err = pgx.ForEachRow(rows, []any{&node, &n.Status, &n.Attempt, &n.RootStepID}, func() error {
			out[node] = n
			return nil
		})
		return err
	})
	return out, translate("previous nodes", err)
}
