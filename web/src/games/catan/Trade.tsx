import { useState } from 'react';
import type { ClientTrade } from '../../../../src/games/catan/client-view.js';
import type { LegalActions } from '../../../../src/games/catan/rules/legal.js';
import type { Action, Resource, Resources } from '../../../../src/games/catan/rules/types.js';
import { RESOURCE_LIST, countsText, nonZero, of, total } from './choices.js';

/**
 * Trading and discarding: counters per resource. What may be offered is bounded by the hand the
 * rules sent (`legal.offer`, `legal.discard`); open offers get exactly the answers the legal
 * actions list (accept, decline or withdraw, complete with an acceptor); sea trades are the units
 * the rules list at the person's best rate.
 */

const ZERO: Resources = { Holz: 0, Lehm: 0, Wolle: 0, Getreide: 0, Erz: 0 };

function Counter({
  resource,
  value,
  max,
  onChange,
  prefix,
}: {
  resource: Resource;
  value: number;
  max: number;
  onChange: (n: number) => void;
  prefix: string;
}) {
  return (
    <span className="catan-counter" data-testid={`${prefix}-${resource}`} data-value={value}>
      <span className={`catan-res catan-res-${resource}`}>{resource}</span>
      <button
        type="button"
        disabled={value <= 0}
        onClick={() => onChange(value - 1)}
        data-testid={`${prefix}-${resource}-minus`}
        aria-label={`one ${resource} less`}
      >
        −
      </button>
      <span className="catan-count">{value}</span>
      <button
        type="button"
        disabled={value >= max}
        onClick={() => onChange(value + 1)}
        data-testid={`${prefix}-${resource}-plus`}
        aria-label={`one ${resource} more`}
      >
        +
      </button>
    </span>
  );
}

export function Discard({
  legal,
  act,
  disabled,
}: {
  legal: LegalActions;
  act: (a: Action) => void;
  disabled: boolean;
}) {
  const [cards, setCards] = useState<Resources>(ZERO);
  const need = legal.discard?.count ?? 0;
  const hand = legal.discard?.hand ?? ZERO;
  const chosen = total(cards);
  return (
    <div className="catan-dialog" data-testid="catan-discard" data-count={need}>
      <h3>The robber: discard {need} cards</h3>
      <div className="catan-counters">
        {RESOURCE_LIST.map((r) => (
          <Counter
            key={r}
            resource={r}
            value={cards[r]}
            max={Math.min(hand[r], cards[r] + need - chosen)}
            onChange={(n) => setCards({ ...cards, [r]: n })}
            prefix="catan-discard"
          />
        ))}
      </div>
      <button
        type="button"
        disabled={disabled || chosen !== need}
        onClick={() => act({ type: 'discard', cards: nonZero(cards) })}
        data-testid="catan-discard-send"
      >
        Discard {chosen} of {need}
      </button>
    </div>
  );
}

export function OfferTrade({
  legal,
  act,
  disabled,
}: {
  legal: LegalActions;
  act: (a: Action) => void;
  disabled: boolean;
}) {
  const [give, setGive] = useState<Resources>(ZERO);
  const [get, setGet] = useState<Resources>(ZERO);
  const hand = legal.offer?.hand ?? ZERO;
  // Both sides non-empty, no type on both: the rules' conditions for an offer.
  const overlap = RESOURCE_LIST.some((r) => give[r] > 0 && get[r] > 0);
  const ok = total(give) > 0 && total(get) > 0 && !overlap;
  return (
    <div className="catan-dialog" data-testid="catan-offer">
      <h3>Offer a trade to the other players</h3>
      <div className="catan-trade-sides">
        <div>
          <div className="muted">You give</div>
          {RESOURCE_LIST.map((r) => (
            <Counter
              key={r}
              resource={r}
              value={give[r]}
              max={hand[r]}
              onChange={(n) => setGive({ ...give, [r]: n })}
              prefix="catan-give"
            />
          ))}
        </div>
        <div>
          <div className="muted">You want</div>
          {RESOURCE_LIST.map((r) => (
            <Counter
              key={r}
              resource={r}
              value={get[r]}
              max={19}
              onChange={(n) => setGet({ ...get, [r]: n })}
              prefix="catan-get"
            />
          ))}
        </div>
      </div>
      {overlap && <p className="error">A resource cannot be on both sides.</p>}
      <button
        type="button"
        disabled={disabled || !ok}
        data-testid="catan-offer-send"
        onClick={() => {
          act({ type: 'offerTrade', offer: nonZero(give), request: nonZero(get) });
          setGive(ZERO);
          setGet(ZERO);
        }}
      >
        Offer {countsText(nonZero(give))} for {countsText(nonZero(get))}
      </button>
    </div>
  );
}

export function SeaTrade({
  legal,
  rates,
  act,
  disabled,
}: {
  legal: LegalActions;
  rates: Readonly<Record<Resource, number>> | null;
  act: (a: Action) => void;
  disabled: boolean;
}) {
  const trades = of(legal, 'seaTrade');
  if (trades.length === 0) return null;
  return (
    <div className="catan-dialog" data-testid="catan-sea">
      <h3>Trade with the bank</h3>
      {rates && (
        <p className="muted">Your rates: {RESOURCE_LIST.map((r) => `${r} ${rates[r]}:1`).join(' · ')}</p>
      )}
      <div className="catan-buttons">
        {trades.map((t) => {
          const give = RESOURCE_LIST.find((r) => (t.offer[r] ?? 0) > 0)!;
          const want = RESOURCE_LIST.find((r) => (t.request[r] ?? 0) > 0)!;
          return (
            <button
              key={`${give}-${want}`}
              type="button"
              disabled={disabled}
              onClick={() => act(t)}
              data-testid={`catan-sea-${give}-${want}`}
            >
              {t.offer[give]} {give} → 1 {want}
            </button>
          );
        })}
      </div>
    </div>
  );
}

export function Offers({
  trades,
  legal,
  me,
  nameOf,
  act,
  disabled,
}: {
  trades: readonly ClientTrade[];
  legal: LegalActions | null;
  me: number | null;
  nameOf: (id: number) => string;
  act: (a: Action) => void;
  disabled: boolean;
}) {
  if (trades.length === 0) return null;
  const accept = new Set(of(legal, 'acceptTrade').map((a) => a.tradeId));
  const cancel = new Set(of(legal, 'cancelTrade').map((a) => a.tradeId));
  const complete = of(legal, 'completeTrade');
  return (
    <div className="catan-dialog" data-testid="catan-offers">
      <h3>Open offers</h3>
      <ul className="plain">
        {trades.map((t) => (
          <li key={t.id} data-testid="catan-offer-row" data-trade={t.id}>
            {t.player === me ? 'You offer' : `${nameOf(t.player)} offers`} {countsText(t.offer)} for{' '}
            {countsText(t.request)}
            {t.acceptedBy.length > 0 && (
              <span className="muted">
                {' '}
                · accepted by {t.acceptedBy.map((id) => (id === me ? 'you' : nameOf(id))).join(', ')}
              </span>
            )}{' '}
            {accept.has(t.id) && (
              <button
                type="button"
                disabled={disabled}
                onClick={() => act({ type: 'acceptTrade', tradeId: t.id })}
                data-testid={`catan-accept-${t.id}`}
              >
                Accept
              </button>
            )}
            {complete
              .filter((c) => c.tradeId === t.id)
              .map((c) => (
                <button
                  key={c.partner}
                  type="button"
                  disabled={disabled}
                  onClick={() => act(c)}
                  data-testid={`catan-complete-${t.id}-${c.partner}`}
                >
                  Trade with {nameOf(c.partner)}
                </button>
              ))}
            {cancel.has(t.id) && (
              <button
                type="button"
                disabled={disabled}
                onClick={() => act({ type: 'cancelTrade', tradeId: t.id })}
                data-testid={`catan-cancel-${t.id}`}
              >
                {t.player === me ? 'Withdraw' : t.acceptedBy.includes(me ?? -1) ? 'Take back' : 'Decline'}
              </button>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
