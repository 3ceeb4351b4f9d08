// Project settings as JSON with Save. A 422's detail[].loc (["body", field, …]) is listed next to the
// editor with its path; the editor is marked invalid and focus moves to the list, so it is read out.
import { ValidationError, type SettingsPatch } from '@spawnpoint/client';
import { announce, clearError, h, showError } from '../dom';
import type { Page } from './page';

export const settingsPage: Page = (main, { sp, kind }) => {
  const editor = h('textarea', { id: 'settings-json', name: 'settings', rows: 24, cols: 80, spellcheck: 'false', 'aria-describedby': 'settings-help' });
  const errors = h('div', { id: 'settings-errors', class: 'field-errors', tabindex: -1, hidden: true });
  const form = h('form', {},
    h('label', { for: 'settings-json' }, 'Settings (JSON)'),
    h('p', { id: 'settings-help', class: 'help' }, 'Each top-level field given replaces the stored one. Secrets are shown redacted: leave them out to keep them.'),
    editor, errors, h('button', { type: 'submit', disabled: kind === 'client' }, 'Save'));
  main.append(h('h1', {}, 'Project settings'), kind === 'client' ? h('p', {}, 'Saving needs the server key.') : '', form);

  const showIssues = (issues: { loc: (string | number)[]; msg: string }[]) => {
    errors.replaceChildren(h('h2', {}, `${issues.length} invalid ${issues.length === 1 ? 'value' : 'values'}`),
      h('ul', {}, ...issues.map((i) => h('li', {}, h('code', {}, i.loc.filter((p) => p !== 'body').join('.')), `: ${i.msg}`))));
    errors.hidden = false;
    editor.setAttribute('aria-invalid', 'true');
    editor.setAttribute('aria-describedby', 'settings-help settings-errors');
    errors.focus();
  };
  const clearIssues = () => {
    errors.hidden = true;
    errors.replaceChildren();
    editor.removeAttribute('aria-invalid');
    editor.setAttribute('aria-describedby', 'settings-help');
  };

  void sp.projects.getSettings().then((s) => { editor.value = JSON.stringify(s, null, 2); }, showError);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    clearError();
    clearIssues();
    // Whatever the editor holds is sent as it is: the API checks it and answers each issue (shown below).
    let patch: SettingsPatch;
    try {
      patch = JSON.parse(editor.value);
    } catch (err) {
      showIssues([{ loc: ['(json)'], msg: (err as Error).message }]);
      return;
    }
    try {
      const saved = await sp.projects.updateSettings(patch);
      editor.value = JSON.stringify(saved, null, 2);
      announce('Settings saved');
    } catch (err) {
      if (err instanceof ValidationError && err.issues.length) showIssues(err.issues);
      else showError(err);
    }
  });
  return () => undefined;
};
