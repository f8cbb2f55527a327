/**
 * The docs page's own script, served as `/docs/docs.js` (no inline script, so the page's CSP can
 * forbid them): shows the chosen version's description and keeps the choice in `?version=`.
 */
export const DOCS_SCRIPT = `(() => {
  const select = document.getElementById('docs-version');
  const wanted = new URLSearchParams(location.search).get('version');
  for (const option of select.options) if (option.dataset.version === wanted) select.value = option.value;
  const show = () => {
    window.SwaggerUIBundle({
      url: select.value,
      dom_id: '#docs-reference',
      validatorUrl: null,
      deepLinking: false,
      docExpansion: 'list',
      defaultModelsExpandDepth: 0,
      displayRequestDuration: true,
    });
  };
  select.addEventListener('change', () => {
    history.replaceState(null, '', '?version=' + encodeURIComponent(select.selectedOptions[0].dataset.version));
    show();
  });
  show();
})();
`;
