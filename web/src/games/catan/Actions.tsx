import type { LegalActions } from '../../../../src/games/catan/rules/legal.js';
import type { Action } from '../../../../src/games/catan/rules/types.js';
import { RESOURCE_LIST, countsText, of, roadChoices, robberMoves, type Mode } from './choices.js';
import { useTranslation } from 'react-i18next';

/**
 * The person's turn actions, as buttons for exactly what the legal actions list: roll, end the
 * turn, buy and play development cards, the robber's victim, and the builds (also clickable on
 * the board). Trading and discarding are in Trade.tsx.
 */

export interface ActionsProps {
  legal: LegalActions;
  mode: Mode;
  setMode: (m: Mode) => void;
  /** The robber hex picked on the board, waiting for a victim. */
  hex: string | null;
  act: (a: Action) => void;
  disabled: boolean;
  nameOf: (id: number) => string;
}

export function Actions({ legal, mode, setMode, hex, act, disabled, nameOf }: ActionsProps) {
  const { t } = useTranslation();
  const has = (type: Action['type']) => legal.actions.some((a) => a.type === type);
  const builds = of(legal, 'build');
  const robber = robberMoves(legal, mode);
  const victims = hex === null ? [] : robber.filter((a) => a.hex === hex);
  const yop = of(legal, 'playYearOfPlenty');
  const monopoly = of(legal, 'playMonopoly');
  const roads = mode.kind === 'roads' ? roadChoices(legal, mode.first) : null;
  const setup = legal.status === 'Dorf bauen' || legal.status === 'Strasse bauen';
  return (
    <div className="catan-actions" data-testid="catan-actions">
      <div className="catan-buttons">
        {has('roll') && (
          <button
            type="button"
            className="catan-primary"
            disabled={disabled}
            onClick={() => act({ type: 'roll' })}
            data-testid="catan-act-roll"
          >
            {t('catan.actions.roll')}
          </button>
        )}
        {has('buyDevCard') && (
          <button
            type="button"
            disabled={disabled}
            onClick={() => act({ type: 'buyDevCard' })}
            data-testid="catan-act-buyDevCard"
          >
            {t('catan.actions.buyCard')}
          </button>
        )}
        {has('playKnight') && mode.kind !== 'knight' && (
          <button
            type="button"
            disabled={disabled}
            onClick={() => setMode({ kind: 'knight' })}
            data-testid="catan-act-knight"
          >
            {t('catan.actions.knight')}
          </button>
        )}
        {has('playRoadBuilding') && mode.kind !== 'roads' && (
          <button
            type="button"
            disabled={disabled}
            onClick={() => setMode({ kind: 'roads', first: null })}
            data-testid="catan-act-roads"
          >
            {t('catan.actions.roadBuilding')}
          </button>
        )}
        {mode.kind !== 'default' && (
          <button type="button" onClick={() => setMode({ kind: 'default' })} data-testid="catan-act-back">
            {t('catan.actions.back')}
          </button>
        )}
        {has('endTurn') && (
          <button
            type="button"
            disabled={disabled}
            onClick={() => act({ type: 'endTurn' })}
            data-testid="catan-act-endTurn"
          >
            {t('catan.actions.endTurn')}
          </button>
        )}
      </div>
      {setup && (
        <p className="catan-hint">
          {t('catan.actions.placeFree', { piece: legal.status === 'Dorf bauen' ? 'Dorf' : 'Strasse' })}
        </p>
      )}
      {(legal.status === 'Raeuber versetzen' || mode.kind === 'knight') && (
        <p className="catan-hint" data-testid="catan-robber-hint">
          {mode.kind === 'knight' ? t('catan.actions.knightRobber') : t('catan.actions.robber')}
        </p>
      )}
      {victims.length > 0 && (
        <div className="catan-buttons" data-testid="catan-victims">
          <span>{t('catan.actions.robberTo', { hex })}</span>
          {victims.map((a) => (
            <button
              key={a.victim ?? 'none'}
              type="button"
              disabled={disabled}
              onClick={() => act(a)}
              data-testid={a.victim === undefined ? 'catan-victim-none' : `catan-victim-${a.victim}`}
            >
              {a.victim === undefined
                ? t('catan.actions.stealNobody')
                : t('catan.actions.stealFrom', { who: nameOf(a.victim) })}
            </button>
          ))}
        </div>
      )}
      {roads && (
        <div className="catan-buttons" data-testid="catan-roads">
          <span className="catan-hint">
            {mode.kind === 'roads' && mode.first !== null
              ? t('catan.actions.secondRoad', { first: mode.first })
              : t('catan.actions.firstRoad')}
          </span>
          {roads.single && (
            <button
              type="button"
              disabled={disabled}
              onClick={() => act(roads.single!)}
              data-testid="catan-roads-single"
            >
              {t('catan.actions.onlyThisRoad')}
            </button>
          )}
        </div>
      )}
      {monopoly.length > 0 && (
        <div className="catan-buttons">
          <span>{t('catan.actions.monopoly')}</span>
          {monopoly.map((a) => (
            <button
              key={a.resource}
              type="button"
              disabled={disabled}
              onClick={() => act(a)}
              data-testid={`catan-monopoly-${a.resource}`}
            >
              {t('catan.actions.all', { resource: a.resource })}
            </button>
          ))}
        </div>
      )}
      {yop.length > 0 && (
        <div className="catan-buttons">
          <span>{t('catan.actions.yearOfPlenty')}</span>
          {yop.map((a) => (
            <button
              key={RESOURCE_LIST.map((r) => a.resources[r] ?? 0).join('')}
              type="button"
              disabled={disabled}
              onClick={() => act(a)}
              data-testid={`catan-yop-${RESOURCE_LIST.map((r) => a.resources[r] ?? 0).join('')}`}
            >
              {countsText(a.resources, t)}
            </button>
          ))}
        </div>
      )}
      {builds.length > 0 && mode.kind === 'default' && !setup && (
        <div className="catan-builds">
          <span className="muted">{t('catan.actions.build')}</span>
          {builds.map((b) => (
            <button
              key={`${b.piece}-${b.at}`}
              type="button"
              className="catan-build-chip"
              disabled={disabled}
              onClick={() => act(b)}
              data-testid={`catan-build-${b.piece}-${b.at}`}
            >
              {t('catan.actions.buildChip', { piece: b.piece, at: b.at })}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}
