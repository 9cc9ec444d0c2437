import { useState } from 'react';
import type { ClientTrade } from '../../../../src/games/catan/client-view.js';
import type { LegalActions } from '../../../../src/games/catan/rules/legal.js';
import type { Action, Resource, Resources } from '../../../../src/games/catan/rules/types.js';
import { RESOURCE_LIST, countsText, nonZero, of, total } from './choices.js';
import { useTranslation } from 'react-i18next';

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
  const { t } = useTranslation();
  return (
    <span className="catan-counter" data-testid={`${prefix}-${resource}`} data-value={value}>
      <span className={`catan-res catan-res-${resource}`}>{resource}</span>
      <button
        type="button"
        disabled={value <= 0}
        onClick={() => onChange(value - 1)}
        data-testid={`${prefix}-${resource}-minus`}
        aria-label={t('catan.trade.less', { resource })}
      >
        −
      </button>
      <span className="catan-count">{value}</span>
      <button
        type="button"
        disabled={value >= max}
        onClick={() => onChange(value + 1)}
        data-testid={`${prefix}-${resource}-plus`}
        aria-label={t('catan.trade.more', { resource })}
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
  const { t } = useTranslation();
  const [cards, setCards] = useState<Resources>(ZERO);
  const need = legal.discard?.count ?? 0;
  const hand = legal.discard?.hand ?? ZERO;
  const chosen = total(cards);
  return (
    <div className="catan-dialog" data-testid="catan-discard" data-count={need}>
      <h3>{t('catan.trade.discardTitle', { count: need })}</h3>
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
        {t('catan.trade.discard', { chosen, need })}
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
  const { t } = useTranslation();
  const [give, setGive] = useState<Resources>(ZERO);
  const [get, setGet] = useState<Resources>(ZERO);
  const hand = legal.offer?.hand ?? ZERO;
  // Both sides non-empty, no type on both: the rules' conditions for an offer.
  const overlap = RESOURCE_LIST.some((r) => give[r] > 0 && get[r] > 0);
  const ok = total(give) > 0 && total(get) > 0 && !overlap;
  return (
    <div className="catan-dialog" data-testid="catan-offer">
      <h3>{t('catan.trade.offerTitle')}</h3>
      <div className="catan-trade-sides">
        <div>
          <div className="muted">{t('catan.trade.youGive')}</div>
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
          <div className="muted">{t('catan.trade.youWant')}</div>
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
      {overlap && <p className="error">{t('catan.trade.bothSides')}</p>}
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
        {t('catan.trade.offerButton', {
          give: countsText(nonZero(give), t),
          get: countsText(nonZero(get), t),
        })}
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
  const { t } = useTranslation();
  const trades = of(legal, 'seaTrade');
  if (trades.length === 0) return null;
  return (
    <div className="catan-dialog" data-testid="catan-sea">
      <h3>{t('catan.trade.bankTitle')}</h3>
      {rates && (
        <p className="muted">
          {t('catan.trade.rates', {
            rates: RESOURCE_LIST.map((r) => `${t('catan.term', { term: r })} ${rates[r]}:1`).join(' · '),
          })}
        </p>
      )}
      <div className="catan-buttons">
        {trades.map((sea) => {
          const give = RESOURCE_LIST.find((r) => (sea.offer[r] ?? 0) > 0)!;
          const want = RESOURCE_LIST.find((r) => (sea.request[r] ?? 0) > 0)!;
          return (
            <button
              key={`${give}-${want}`}
              type="button"
              disabled={disabled}
              onClick={() => act(sea)}
              data-testid={`catan-sea-${give}-${want}`}
            >
              {sea.offer[give]} {t('catan.term', { term: give })} → 1 {t('catan.term', { term: want })}
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
  const { t } = useTranslation();
  if (trades.length === 0) return null;
  const accept = new Set(of(legal, 'acceptTrade').map((a) => a.tradeId));
  const cancel = new Set(of(legal, 'cancelTrade').map((a) => a.tradeId));
  const complete = of(legal, 'completeTrade');
  return (
    <div className="catan-dialog" data-testid="catan-offers">
      <h3>{t('catan.watch.openOffers')}</h3>
      <ul className="plain">
        {trades.map((trade) => (
          <li key={trade.id} data-testid="catan-offer-row" data-trade={trade.id}>
            {trade.player === me
              ? t('catan.trade.youOffer', {
                  offer: countsText(trade.offer, t),
                  request: countsText(trade.request, t),
                })
              : t('catan.watch.offer', {
                  who: nameOf(trade.player),
                  offer: countsText(trade.offer, t),
                  request: countsText(trade.request, t),
                })}
            {trade.acceptedBy.length > 0 && (
              <span className="muted">
                {' '}
                ·{' '}
                {t('catan.trade.acceptedBy', {
                  names: trade.acceptedBy
                    .map((id) => (id === me ? t('catan.trade.you') : nameOf(id)))
                    .join(', '),
                })}
              </span>
            )}{' '}
            {accept.has(trade.id) && (
              <button
                type="button"
                disabled={disabled}
                onClick={() => act({ type: 'acceptTrade', tradeId: trade.id })}
                data-testid={`catan-accept-${trade.id}`}
              >
                {t('catan.trade.accept')}
              </button>
            )}
            {complete
              .filter((c) => c.tradeId === trade.id)
              .map((c) => (
                <button
                  key={c.partner}
                  type="button"
                  disabled={disabled}
                  onClick={() => act(c)}
                  data-testid={`catan-complete-${trade.id}-${c.partner}`}
                >
                  {t('catan.trade.tradeWith', { who: nameOf(c.partner) })}
                </button>
              ))}
            {cancel.has(trade.id) && (
              <button
                type="button"
                disabled={disabled}
                onClick={() => act({ type: 'cancelTrade', tradeId: trade.id })}
                data-testid={`catan-cancel-${trade.id}`}
              >
                {trade.player === me
                  ? t('catan.trade.withdraw')
                  : trade.acceptedBy.includes(me ?? -1)
                    ? t('catan.trade.takeBack')
                    : t('catan.trade.decline')}
              </button>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
