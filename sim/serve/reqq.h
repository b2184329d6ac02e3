/* sim/serve/reqq.h: the FIFO every waiting line of requests uses (a prefill
 * instance's queue, a decode instance's admission and inline-prefill
 * queues, a colocated instance's prompts), intrusive through sim_req_t.next:
 * no allocation, O(1) per call. A queue is a (head, tail) pair of pointers,
 * both NULL when empty; invariant: tail->next == NULL, and a request sits in
 * at most one queue (its next is NULL while in none). Header-only: each call
 * is a few stores. */
#ifndef SIM_REQQ_H
#define SIM_REQQ_H

#include <stddef.h>

#include "sim/core/request.h"

/* Append r (in no queue) at the tail. */
static inline void sim_reqq_push_back(sim_req_t **head, sim_req_t **tail, sim_req_t *r)
{
    r->next = NULL;
    if (*tail)
        (*tail)->next = r;
    else
        *head = r;
    *tail = r;
}

/* Put r (in no queue) at the head: it is served next. */
static inline void sim_reqq_push_front(sim_req_t **head, sim_req_t **tail, sim_req_t *r)
{
    r->next = *head;
    *head = r;
    if (!*tail)
        *tail = r;
}

/* Take the head out; NULL when the queue is empty. */
static inline sim_req_t *sim_reqq_pop_front(sim_req_t **head, sim_req_t **tail)
{
    sim_req_t *r = *head;
    if (!r)
        return NULL;
    *head = r->next;
    if (!*head)
        *tail = NULL;
    r->next = NULL;
    return r;
}

#endif
