// Hard cases for every failure class of issue 12, written from a phrase table in 20 languages (no
// corpus email is copied here): a code with a sign-in link, a confirm button behind a click tracker
// whose help/preferences/unsubscribe links use the same tracker, an HTML-only confirm button, a
// reset URL in parentheses in text/plain, an identity-provider action link with no word near it,
// codes split by &nbsp; or '-' among many other numbers, and safety exits that must never be
// returned ("secure your account", "this wasn't me").
import test from 'ava';
import { explain, extract } from '../../src/extract/index.js';

interface Lang {
  code: string;
  /** Subject of a sign-in mail that carries a code. */
  codeSubject: string;
  /** Sentence introducing the code. */
  codeIntro: string;
  /** Sentence offering the sign-in link instead. */
  orLink: string;
  signIn: string;
  confirmSubject: string;
  /** Body sentence asking to confirm the address. */
  confirmBody: string;
  confirmButton: string;
  help: string;
  prefs: string;
  unsubscribe: string;
  resetSubject: string;
  /** Label before a reset URL in parentheses. */
  resetLabel: string;
  /** A new sign-in notice: someone signed in; the only action is to secure the account. */
  alertSubject: string;
  alertBody: string;
  notYou: string;
  secure: string;
}

const LANGS: Lang[] = [
  {
    code: 'en', codeSubject: 'Your sign-in code', codeIntro: 'Enter this code to sign in:', orLink: 'Or sign in with one click:', signIn: 'Sign in',
    confirmSubject: 'Confirm your email address', confirmBody: 'Thanks for signing up. Please confirm your email address to activate your account.', confirmButton: 'Confirm email',
    help: 'Help center', prefs: 'Email preferences', unsubscribe: 'Unsubscribe', resetSubject: 'Reset your password', resetLabel: 'To choose a new password, open the reset page',
    alertSubject: 'New sign-in to your account', alertBody: 'We noticed a new sign-in from Firefox on Windows.', notYou: 'If this wasn\'t you,', secure: 'secure your account',
  },
  {
    code: 'de', codeSubject: 'Ihr Anmeldecode', codeIntro: 'Geben Sie diesen Code ein, um sich anzumelden:', orLink: 'Oder melden Sie sich direkt an:', signIn: 'Jetzt anmelden',
    confirmSubject: 'Bestätigen Sie Ihre E-Mail-Adresse', confirmBody: 'Danke für Ihre Registrierung. Bitte bestätigen Sie Ihre E-Mail-Adresse, um Ihr Konto zu aktivieren.', confirmButton: 'E-Mail-Adresse bestätigen',
    help: 'Hilfe', prefs: 'Einstellungen', unsubscribe: 'Newsletter abbestellen', resetSubject: 'Passwort zurücksetzen', resetLabel: 'Um ein neues Passwort festzulegen, öffnen Sie diese Seite',
    alertSubject: 'Neue Anmeldung bei Ihrem Konto', alertBody: 'Wir haben eine neue Anmeldung von Firefox unter Windows bemerkt.', notYou: 'Waren Sie das nicht?', secure: 'Konto sperren',
  },
  {
    code: 'nl', codeSubject: 'Je inlogcode', codeIntro: 'Voer deze code in om in te loggen:', orLink: 'Of log direct in met één klik:', signIn: 'Inloggen',
    confirmSubject: 'Bevestig je e-mailadres', confirmBody: 'Bedankt voor je aanmelding. Bevestig je e-mailadres om je account te activeren.', confirmButton: 'E-mailadres bevestigen',
    help: 'Klantenservice', prefs: 'Voorkeuren', unsubscribe: 'Uitschrijven', resetSubject: 'Wachtwoord opnieuw instellen', resetLabel: 'Kies een nieuw wachtwoord via deze pagina',
    alertSubject: 'Nieuwe aanmelding op je account', alertBody: 'We zagen een nieuwe aanmelding vanaf Firefox op Windows.', notYou: 'Was jij dit niet?', secure: 'Beveilig je account',
  },
  {
    code: 'fr', codeSubject: 'Votre code de connexion', codeIntro: 'Saisissez ce code pour vous connecter :', orLink: 'Ou connectez-vous en un clic :', signIn: 'Se connecter',
    confirmSubject: 'Confirmez votre adresse e-mail', confirmBody: 'Merci pour votre inscription. Confirmez votre adresse e-mail pour activer votre compte.', confirmButton: 'Confirmer mon adresse',
    help: 'Aide', prefs: 'Préférences', unsubscribe: 'Se désabonner', resetSubject: 'Réinitialisez votre mot de passe', resetLabel: 'Pour choisir un nouveau mot de passe, ouvrez cette page',
    alertSubject: 'Nouvelle connexion à votre compte', alertBody: 'Une nouvelle connexion depuis Firefox sous Windows a eu lieu.', notYou: 'Ce n\'était pas vous ?', secure: 'Sécuriser mon compte',
  },
  {
    code: 'es', codeSubject: 'Tu código de acceso', codeIntro: 'Introduce este código para iniciar sesión:', orLink: 'O inicia sesión con un clic:', signIn: 'Iniciar sesión',
    confirmSubject: 'Confirma tu dirección de correo', confirmBody: 'Gracias por registrarte. Confirma tu correo electrónico para activar tu cuenta.', confirmButton: 'Confirmar correo',
    help: 'Ayuda', prefs: 'Preferencias', unsubscribe: 'Darse de baja', resetSubject: 'Restablece tu contraseña', resetLabel: 'Para elegir una nueva contraseña, abre esta página',
    alertSubject: 'Nuevo inicio de sesión en tu cuenta', alertBody: 'Detectamos un inicio de sesión desde Firefox en Windows.', notYou: '¿No fuiste tú?', secure: 'Proteger mi cuenta',
  },
  {
    code: 'pt', codeSubject: 'Seu código de acesso', codeIntro: 'Digite este código para entrar:', orLink: 'Ou faça login com um clique:', signIn: 'Fazer login',
    confirmSubject: 'Confirme seu e-mail', confirmBody: 'Obrigado pelo cadastro. Confirme seu endereço de e-mail para ativar sua conta.', confirmButton: 'Confirmar e-mail',
    help: 'Central de ajuda', prefs: 'Preferências', unsubscribe: 'Descadastrar', resetSubject: 'Redefina sua senha', resetLabel: 'Para escolher uma nova senha, abra esta página',
    alertSubject: 'Novo login na sua conta', alertBody: 'Detectamos um novo login pelo Firefox no Windows.', notYou: 'Não foi você?', secure: 'Proteger minha conta',
  },
  {
    code: 'it', codeSubject: 'Il tuo codice di accesso', codeIntro: 'Inserisci questo codice per accedere:', orLink: 'Oppure accedi con un clic:', signIn: 'Accedi',
    confirmSubject: 'Conferma il tuo indirizzo email', confirmBody: 'Grazie per la registrazione. Conferma il tuo indirizzo email per attivare l\'account.', confirmButton: 'Conferma email',
    help: 'Centro assistenza', prefs: 'Preferenze email', unsubscribe: 'Annulla iscrizione', resetSubject: 'Reimposta la password', resetLabel: 'Per scegliere una nuova password, apri questa pagina',
    alertSubject: 'Nuovo accesso al tuo account', alertBody: 'Abbiamo rilevato un nuovo accesso da Firefox su Windows.', notYou: 'Non sei stato tu?', secure: 'Proteggi il tuo account',
  },
  {
    code: 'pl', codeSubject: 'Twój kod logowania', codeIntro: 'Wpisz ten kod, aby się zalogować:', orLink: 'Możesz też zalogować się jednym kliknięciem:', signIn: 'Zaloguj się',
    confirmSubject: 'Potwierdź swój adres e-mail', confirmBody: 'Dziękujemy za rejestrację. Potwierdź adres e-mail, aby aktywować konto.', confirmButton: 'Potwierdź adres',
    help: 'Pomoc', prefs: 'Ustawienia', unsubscribe: 'Wypisz się', resetSubject: 'Zresetuj hasło', resetLabel: 'Aby ustawić nowe hasło, otwórz tę stronę',
    alertSubject: 'Nowe logowanie na Twoje konto', alertBody: 'Zauważyliśmy nowe logowanie z Firefoksa na Windows.', notYou: 'To nie Ty?', secure: 'Zabezpiecz konto',
  },
  {
    code: 'cs', codeSubject: 'Váš přihlašovací kód', codeIntro: 'Zadejte tento kód pro přihlášení:', orLink: 'Nebo se přihlaste jedním kliknutím:', signIn: 'Přihlásit se',
    confirmSubject: 'Potvrďte svou e-mailovou adresu', confirmBody: 'Děkujeme za registraci. Potvrďte svou e-mailovou adresu a aktivujte účet.', confirmButton: 'Potvrdit e-mail',
    help: 'Nápověda', prefs: 'Nastavení', unsubscribe: 'Odhlásit odběr', resetSubject: 'Obnovení hesla', resetLabel: 'Nové heslo si nastavíte na této stránce',
    alertSubject: 'Nové přihlášení k účtu', alertBody: 'Zaznamenali jsme nové přihlášení z Firefoxu ve Windows.', notYou: 'Nebyli jste to vy?', secure: 'Zabezpečit účet',
  },
  {
    code: 'sv', codeSubject: 'Din inloggningskod', codeIntro: 'Ange den här koden för att logga in:', orLink: 'Eller logga in med ett klick:', signIn: 'Logga in',
    confirmSubject: 'Bekräfta din e-postadress', confirmBody: 'Tack för din registrering. Bekräfta din e-postadress för att aktivera kontot.', confirmButton: 'Bekräfta e-post',
    help: 'Hjälp', prefs: 'Inställningar', unsubscribe: 'Avregistrera', resetSubject: 'Återställ ditt lösenord', resetLabel: 'Välj ett nytt lösenord på den här sidan',
    alertSubject: 'Ny inloggning på ditt konto', alertBody: 'Vi har sett en ny inloggning från Firefox på Windows.', notYou: 'Var det inte du?', secure: 'Skydda kontot',
  },
  {
    code: 'da', codeSubject: 'Din login-kode', codeIntro: 'Indtast denne kode for at logge ind:', orLink: 'Eller log ind med ét klik:', signIn: 'Log ind',
    confirmSubject: 'Bekræft din e-mailadresse', confirmBody: 'Tak for din tilmelding. Bekræft din e-mailadresse for at aktivere din konto.', confirmButton: 'Bekræft e-mail',
    help: 'Hjælp', prefs: 'Indstillinger', unsubscribe: 'Afmeld', resetSubject: 'Nulstil din adgangskode', resetLabel: 'Vælg en ny adgangskode på denne side',
    alertSubject: 'Nyt login på din konto', alertBody: 'Vi har registreret et nyt login fra Firefox på Windows.', notYou: 'Var det ikke dig?', secure: 'Beskyt din konto',
  },
  {
    code: 'no', codeSubject: 'Din påloggingskode', codeIntro: 'Skriv inn denne koden for å logge inn:', orLink: 'Eller logg inn med ett klikk:', signIn: 'Logg inn',
    confirmSubject: 'Bekreft e-postadressen din', confirmBody: 'Takk for registreringen. Bekreft e-postadressen din for å aktivere kontoen.', confirmButton: 'Bekreft e-post',
    help: 'Hjelp', prefs: 'Innstillinger', unsubscribe: 'Avmeld', resetSubject: 'Tilbakestill passordet ditt', resetLabel: 'Velg et nytt passord på denne siden',
    alertSubject: 'Ny pålogging på kontoen din', alertBody: 'Vi så en ny pålogging fra Firefox på Windows.', notYou: 'Var det ikke deg?', secure: 'Sikre kontoen',
  },
  {
    code: 'fi', codeSubject: 'Kirjautumiskoodisi', codeIntro: 'Syötä tämä koodi kirjautuaksesi:', orLink: 'Tai kirjaudu yhdellä napsautuksella:', signIn: 'Kirjaudu sisään',
    confirmSubject: 'Vahvista sähköpostiosoitteesi', confirmBody: 'Kiitos rekisteröitymisestä. Vahvista sähköpostiosoitteesi aktivoidaksesi tilin.', confirmButton: 'Vahvista sähköposti',
    help: 'Ohje', prefs: 'Asetukset', unsubscribe: 'Peruuta tilaus', resetSubject: 'Nollaa salasanasi', resetLabel: 'Valitse uusi salasana tällä sivulla',
    alertSubject: 'Uusi kirjautuminen tilillesi', alertBody: 'Huomasimme uuden kirjautumisen Firefoxista Windowsissa.', notYou: 'Etkö se ollut sinä?', secure: 'Lukitse tili',
  },
  {
    code: 'tr', codeSubject: 'Giriş kodunuz', codeIntro: 'Giriş yapmak için bu kodu girin:', orLink: 'Ya da tek tıkla giriş yapın:', signIn: 'Giriş yap',
    confirmSubject: 'E-posta adresinizi doğrulayın', confirmBody: 'Kaydınız için teşekkürler. Hesabınızı etkinleştirmek için e-posta adresinizi doğrulayın.', confirmButton: 'E-postamı doğrula',
    help: 'Yardım', prefs: 'Tercihler', unsubscribe: 'Abonelikten çık', resetSubject: 'Şifrenizi sıfırlayın', resetLabel: 'Yeni şifrenizi bu sayfada belirleyin',
    alertSubject: 'Hesabınıza yeni giriş', alertBody: 'Windows üzerinde Firefox ile yeni bir giriş fark ettik.', notYou: 'Siz değilseniz', secure: 'hesabı kilitle',
  },
  {
    code: 'el', codeSubject: 'Ο κωδικός σύνδεσής σας', codeIntro: 'Εισάγετε αυτόν τον κωδικό για να συνδεθείτε:', orLink: 'Ή συνδεθείτε με ένα κλικ:', signIn: 'Σύνδεση',
    confirmSubject: 'Επιβεβαιώστε το email σας', confirmBody: 'Ευχαριστούμε για την εγγραφή. Επιβεβαιώστε τη διεύθυνση email σας για να ενεργοποιήσετε τον λογαριασμό.', confirmButton: 'Επιβεβαίωση email',
    help: 'Βοήθεια', prefs: 'Ρυθμίσεις', unsubscribe: 'Απεγγραφή', resetSubject: 'Επαναφορά κωδικού πρόσβασης', resetLabel: 'Ορίστε νέο κωδικό πρόσβασης σε αυτή τη σελίδα',
    alertSubject: 'Νέα σύνδεση στον λογαριασμό σας', alertBody: 'Εντοπίσαμε νέα σύνδεση από Firefox σε Windows.', notYou: 'Δεν ήσασταν εσείς;', secure: 'Κλείδωμα λογαριασμού',
  },
  {
    code: 'ru', codeSubject: 'Код для входа', codeIntro: 'Введите этот код, чтобы войти:', orLink: 'Или войдите одним нажатием:', signIn: 'Войти',
    confirmSubject: 'Подтвердите адрес электронной почты', confirmBody: 'Спасибо за регистрацию. Подтвердите адрес почты, чтобы активировать аккаунт.', confirmButton: 'Подтвердить почту',
    help: 'Помощь', prefs: 'Настройки рассылки', unsubscribe: 'Отписаться', resetSubject: 'Сброс пароля', resetLabel: 'Чтобы задать новый пароль, откройте эту страницу',
    alertSubject: 'Новый вход в аккаунт', alertBody: 'Мы заметили вход из Firefox на Windows.', notYou: 'Это были не вы?', secure: 'Заблокировать аккаунт',
  },
  {
    code: 'he', codeSubject: 'קוד הכניסה שלך', codeIntro: 'הזינו את הקוד כדי להתחבר:', orLink: 'או התחברו בלחיצה אחת:', signIn: 'התחברות',
    confirmSubject: 'אימות כתובת האימייל', confirmBody: 'תודה שנרשמת. יש לאמת את כתובת האימייל כדי להפעיל את החשבון.', confirmButton: 'אימות האימייל',
    help: 'עזרה', prefs: 'העדפות', unsubscribe: 'להסרה מרשימת התפוצה', resetSubject: 'איפוס סיסמה', resetLabel: 'לבחירת סיסמה חדשה פתחו את הדף',
    alertSubject: 'כניסה חדשה לחשבון', alertBody: 'זיהינו כניסה חדשה מ-Firefox ב-Windows.', notYou: 'לא אתה?', secure: 'נעל את החשבון',
  },
  {
    code: 'ar', codeSubject: 'رمز تسجيل الدخول', codeIntro: 'أدخل هذا الرمز لتسجيل الدخول:', orLink: 'أو سجّل الدخول بنقرة واحدة:', signIn: 'تسجيل الدخول',
    confirmSubject: 'تأكيد بريدك الإلكتروني', confirmBody: 'شكرًا لتسجيلك. يرجى تأكيد بريدك الإلكتروني لتفعيل حسابك.', confirmButton: 'تأكيد البريد',
    help: 'مركز المساعدة', prefs: 'التفضيلات', unsubscribe: 'إلغاء الاشتراك', resetSubject: 'إعادة تعيين كلمة المرور', resetLabel: 'لاختيار كلمة مرور جديدة افتح هذه الصفحة',
    alertSubject: 'تسجيل دخول جديد إلى حسابك', alertBody: 'لاحظنا تسجيل دخول جديد من Firefox على Windows.', notYou: 'لم تكن أنت؟', secure: 'تأمين الحساب',
  },
  {
    code: 'hi', codeSubject: 'आपका लॉग इन कोड', codeIntro: 'लॉग इन करने के लिए यह कोड दर्ज करें:', orLink: 'या एक क्लिक में लॉग इन करें:', signIn: 'लॉग इन करें',
    confirmSubject: 'अपना ईमेल सत्यापित करें', confirmBody: 'पंजीकरण के लिए धन्यवाद। खाता सक्रिय करने के लिए अपना ईमेल पता सत्यापित करें।', confirmButton: 'ईमेल की पुष्टि करें',
    help: 'सहायता', prefs: 'प्राथमिकताएं', unsubscribe: 'सदस्यता समाप्त करें', resetSubject: 'पासवर्ड रीसेट करें', resetLabel: 'नया पासवर्ड चुनने के लिए यह पेज खोलें',
    alertSubject: 'आपके खाते में नया लॉग इन', alertBody: 'हमने Windows पर Firefox से नया लॉग इन देखा।', notYou: 'आप नहीं थे?', secure: 'खाता सुरक्षित करें',
  },
  {
    code: 'th', codeSubject: 'รหัสเข้าสู่ระบบของคุณ', codeIntro: 'กรอกรหัสนี้เพื่อเข้าสู่ระบบ:', orLink: 'หรือเข้าสู่ระบบด้วยคลิกเดียว:', signIn: 'เข้าสู่ระบบ',
    confirmSubject: 'ยืนยันอีเมลของคุณ', confirmBody: 'ขอบคุณที่สมัครสมาชิก กรุณายืนยันอีเมลเพื่อเปิดใช้งานบัญชี', confirmButton: 'ยืนยันอีเมล',
    help: 'ช่วยเหลือ', prefs: 'การตั้งค่า', unsubscribe: 'ยกเลิกการรับข่าวสาร', resetSubject: 'รีเซ็ตรหัสผ่าน', resetLabel: 'ตั้งรหัสผ่านใหม่ได้ที่หน้านี้',
    alertSubject: 'มีการเข้าสู่ระบบใหม่', alertBody: 'เราพบการเข้าสู่ระบบใหม่จาก Firefox บน Windows', notYou: 'ไม่ใช่คุณ?', secure: 'ล็อกบัญชี',
  },
  {
    code: 'vi', codeSubject: 'Mã đăng nhập của bạn', codeIntro: 'Nhập mã này để đăng nhập:', orLink: 'Hoặc đăng nhập chỉ với một lần nhấp:', signIn: 'Đăng nhập',
    confirmSubject: 'Xác nhận địa chỉ email', confirmBody: 'Cảm ơn bạn đã đăng ký. Vui lòng xác nhận email để kích hoạt tài khoản.', confirmButton: 'Xác nhận email',
    help: 'Trợ giúp', prefs: 'Tùy chọn', unsubscribe: 'Hủy đăng ký', resetSubject: 'Đặt lại mật khẩu', resetLabel: 'Chọn mật khẩu mới tại trang này',
    alertSubject: 'Đăng nhập mới vào tài khoản', alertBody: 'Chúng tôi thấy một lần đăng nhập mới từ Firefox trên Windows.', notYou: 'Không phải bạn?', secure: 'Khóa tài khoản',
  },
  {
    code: 'id', codeSubject: 'Kode masuk kamu', codeIntro: 'Masukkan kode ini untuk masuk:', orLink: 'Atau masuk dengan sekali klik:', signIn: 'Masuk sekarang',
    confirmSubject: 'Konfirmasi email kamu', confirmBody: 'Terima kasih sudah mendaftar. Konfirmasi email kamu untuk mengaktifkan akun.', confirmButton: 'Konfirmasi email',
    help: 'Pusat Bantuan', prefs: 'Preferensi', unsubscribe: 'Berhenti berlangganan', resetSubject: 'Atur ulang kata sandi', resetLabel: 'Pilih kata sandi baru di halaman ini',
    alertSubject: 'Login baru ke akun kamu', alertBody: 'Kami melihat login baru dari Firefox di Windows.', notYou: 'Bukan kamu?', secure: 'Amankan akun',
  },
  {
    code: 'ja', codeSubject: 'ログインコードのお知らせ', codeIntro: 'ログインするには次のコードを入力してください：', orLink: 'またはワンクリックでログイン：', signIn: 'ログインする',
    confirmSubject: 'メールアドレスの確認', confirmBody: 'ご登録ありがとうございます。アカウントを有効にするため、メールアドレスを確認してください。', confirmButton: 'メールアドレスを確認する',
    help: 'ヘルプ', prefs: '配信設定', unsubscribe: '配信停止', resetSubject: 'パスワードの再設定', resetLabel: '新しいパスワードは次のページで設定できます',
    alertSubject: '新しいログインがありました', alertBody: 'Windows の Firefox から新しいログインがありました。', notYou: '心当たりのない場合は', secure: 'アカウントをロック',
  },
  {
    code: 'zh', codeSubject: '您的登录验证码', codeIntro: '请输入以下验证码登录：', orLink: '或一键登录：', signIn: '立即登录',
    confirmSubject: '请确认您的邮箱地址', confirmBody: '感谢注册。请确认您的邮箱地址以激活账户。', confirmButton: '确认邮箱',
    help: '帮助中心', prefs: '偏好设置', unsubscribe: '退订', resetSubject: '重置密码', resetLabel: '请在此页面设置新密码',
    alertSubject: '您的账户有新的登录', alertBody: '我们发现 Windows 上的 Firefox 有新的登录。', notYou: '如果不是您本人操作，', secure: '锁定账户',
  },
  {
    code: 'ko', codeSubject: '로그인 인증 코드', codeIntro: '로그인하려면 다음 코드를 입력하세요:', orLink: '또는 한 번의 클릭으로 로그인하세요:', signIn: '로그인',
    confirmSubject: '이메일 주소를 인증해 주세요', confirmBody: '가입해 주셔서 감사합니다. 계정을 활성화하려면 이메일 주소를 인증해 주세요.', confirmButton: '이메일 인증하기',
    help: '고객센터', prefs: '수신 설정', unsubscribe: '수신거부', resetSubject: '비밀번호 재설정', resetLabel: '새 비밀번호는 이 페이지에서 설정하세요',
    alertSubject: '새로운 로그인 알림', alertBody: 'Windows의 Firefox에서 새로운 로그인이 있었습니다.', notYou: '본인이 아닌 경우', secure: '계정 잠금',
  },
];

// Random-looking tokens, different per language so no two tests share a value.
function token(seed: string, n = 32): string {
  const abc = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0123456789';
  let h = 2166136261;
  for (const ch of seed) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  let out = '';
  for (let i = 0; i < n; i++) {
    h = Math.imul(h ^ (h >>> 13), 1274126177) >>> 0;
    out += abc[h % abc.length];
  }
  return out;
}

const page = (lang: string, body: string): string =>
  `<!DOCTYPE html><html lang="${lang}"${lang === 'he' || lang === 'ar' ? ' dir="rtl"' : ''}><head><meta charset="utf-8"><style>.b{padding:0}</style></head><body><table width="100%"><tr><td>${body}</td></tr></table></body></html>`;
const button = (href: string, label: string): string =>
  `<table><tr><td bgcolor="#1a73e8" style="border-radius:6px"><a href="${href.replace(/&/g, '&amp;')}" style="color:#ffffff;display:inline-block;padding:12px 24px">${label}</a></td></tr></table>`;
const footer = (l: Lang, link: (what: string) => string): string =>
  `<p style="font-size:11px;color:#888">Brand GmbH · Suite 400 · 1600 Harbor Blvd · 94107 · +1 415 555 0199</p>` +
  `<p style="font-size:11px"><a href="${link('help')}">${l.help}</a> · <a href="${link('prefs')}">${l.prefs}</a> · <a href="${link('unsub')}">${l.unsubscribe}</a></p>`;

for (const l of LANGS) {
  const code = String(100000 + (parseInt(token(l.code, 6).replace(/\D/g, '') || '7', 10) * 7919) % 899999);
  const host = `brand-${l.code}.example`;

  test(`extract - ${l.code}: code and sign-in link in one mail give both`, (t) => {
    const magic = `https://${host}/auth/${token(`${l.code}magic`, 6).toLowerCase()}?t=${token(`${l.code}m`)}`;
    const html = page(l.code, `<p>${l.codeIntro}</p><p style="font-size:28px;letter-spacing:6px"><b>${code}</b></p><p>${l.orLink}</p>${button(magic, l.signIn)}` +
      footer(l, (w) => `https://${host}/${w}`));
    const text = `${l.codeIntro}\n\n${code}\n\n${l.orLink}\n${magic}\n`;
    t.deepEqual(extract({ subject: l.codeSubject, html }), { otp: code, verification_link: magic }, 'html');
    t.deepEqual(extract({ subject: l.codeSubject, text }), { otp: code, verification_link: magic }, 'text');
  });

  test(`extract - ${l.code}: confirm button behind the same click tracker as help, preferences and unsubscribe`, (t) => {
    const trk = (w: string): string => `https://click.mailer-${l.code}.example/ls/click?upn=${token(`${l.code}${w}`, 48)}`;
    const html = page(l.code, `<p style="font-size:11px"><a href="${trk('view')}">${l.prefs}</a></p><p>${l.confirmBody}</p>${button(trk('confirm'), l.confirmButton)}` +
      footer(l, trk));
    t.deepEqual(extract({ subject: l.confirmSubject, html }), { otp: null, verification_link: trk('confirm') });
  });

  test(`extract - ${l.code}: HTML-only confirm button with a token only in the path, among company numbers`, (t) => {
    const href = `https://www.${host}/a/${token(`${l.code}path`, 40)}`;
    const html = page(l.code, `<p>${l.confirmBody}</p>${button(href, l.confirmButton)}<p>ID 48213907 · 10115 · 2025</p>` + footer(l, (w) => `https://www.${host}/${w}`));
    t.deepEqual(extract({ subject: l.confirmSubject, html }), { otp: null, verification_link: href });
  });

  test(`extract - ${l.code}: text/plain reset URL in parentheses`, (t) => {
    const href = `https://${host}/pw/${token(`${l.code}reset`, 24)}`;
    const text = `${l.resetSubject}.\n\n${l.resetLabel} (${href}).\n\n${l.help}: https://${host}/help\n`;
    t.deepEqual(extract({ subject: l.resetSubject, text }), { otp: null, verification_link: href });
  });

  test(`extract - ${l.code}: code split by &nbsp; in HTML and by '-' in text, among suite, ZIP, record and phone numbers`, (t) => {
    const split = `${code.slice(0, 3)}&nbsp;${code.slice(3)}`;
    const html = page(l.code, `<p>Record 482913 · Suite 1200 · 94105 · +1 (212) 555-0199</p><p>${l.codeIntro}</p><p><strong>${split}</strong></p>`);
    const text = `Record 482913 · Suite 1200 · 94105 · +1 (212) 555-0199\n${l.codeIntro} ${code.slice(0, 3)}-${code.slice(3)}\nRef 20250611 · 731942 attendees\n`;
    t.is(extract({ subject: l.codeSubject, html }).otp, code, 'html');
    t.is(extract({ subject: l.codeSubject, text }).otp, code, 'text');
  });

  test(`extract - ${l.code}: a new sign-in notice whose only link secures or locks the account gives nothing`, (t) => {
    const lock = `https://${host}/security/lock?r=${token(`${l.code}lock`)}`;
    const html = page(l.code, `<p>${l.alertBody}</p><p>${l.notYou} <a href="${lock}">${l.secure}</a></p>` + footer(l, (w) => `https://${host}/${w}`));
    const text = `${l.alertBody}\n\n${l.notYou} ${l.secure}: ${lock}\n`;
    t.deepEqual(extract({ subject: l.alertSubject, html }), { otp: null, verification_link: null }, 'html');
    t.deepEqual(extract({ subject: l.alertSubject, text }), { otp: null, verification_link: null }, 'text');
    const button2 = page(l.code, `<p>${l.alertBody}</p><p>${l.notYou}</p>${button(lock, l.secure)}`);
    t.deepEqual(extract({ subject: l.alertSubject, html: button2 }), { otp: null, verification_link: null }, 'a lock button standing alone');
  });
}

test('extract - identity-provider action link in text/plain with no action word near it', (t) => {
  const firebase = 'https://auth.brand.example/__/auth/action?mode=verifyEmail&oobCode=Xk2pQ9LmZr7Tn4Wc1Bv8Hs3Jd6Fg0Aq&apiKey=AIzaFakeKey123&lang=pt';
  t.deepEqual(extract({ subject: 'Brand', text: `Olá Ana,\n\n${firebase}\n\nEquipe Brand` }), { otp: null, verification_link: firebase });
  const gotrue = 'https://db.brand.example/auth/v1/verify?token=b1946ac92492d2347c6235b4d2611184&type=signup&redirect_to=https://app.brand.example/welcome';
  t.deepEqual(extract({ subject: 'Brand', text: `Hei!\n\n${gotrue}\n` }), { otp: null, verification_link: gotrue });
  const cognito = 'https://brand.auth.example/confirmUser?client_id=5m2k9qz1&user_name=ana&confirmation_code=402817';
  t.deepEqual(extract({ subject: 'Brand', text: `Merhaba,\n\n${cognito}\n` }), { otp: null, verification_link: cognito });
});

test('extract - the three probes of issue 12', (t) => {
  t.deepEqual(extract({ subject: 'Please verify your device', text: 'Enter 482139 on the verification page, or click https://github.example/account_verifications/confirm/abc123XYZ' }),
    { otp: '482139', verification_link: 'https://github.example/account_verifications/confirm/abc123XYZ' });
  t.deepEqual(extract({ subject: 'Your code', text: 'Use code 4831 or visit https://x.example/i/flow/verify?code=4831' }),
    { otp: '4831', verification_link: 'https://x.example/i/flow/verify?code=4831' });
  t.deepEqual(extract({ subject: 'Login code', text: 'Use 739205 to sign in.' }), { otp: '739205', verification_link: null });
});

test('extract - a webinar "confirm your seat" button in a newsletter is not a verification link', (t) => {
  const trk = (w: string): string => `https://t.news.example/c/${token(w, 40)}`;
  const html = page('en', `<h1>Live webinar: scaling queues</h1><p>Thursday 11:00. Seats are limited to 500, early bird $149.</p>${button(trk('seat'), 'Confirm your seat')}` +
    `<p><a href="${trk('agenda')}">See the agenda</a></p><p><a href="${trk('prefs')}">Manage preferences</a> | <a href="${trk('unsub')}">Unsubscribe</a></p>`);
  t.deepEqual(extract({ subject: 'Webinar next week', html }), { otp: null, verification_link: null });
});

test('extract - reasons say why each value was picked or left null', (t) => {
  const r = explain({ subject: 'Your sign-in code', html: page('en', `<p>Enter this code to sign in:</p><p><b>482913</b></p>${button('https://a.example/magic?t=Ab12Cd34Ef56Gh78', 'Sign in')}`) });
  t.is(r.otp, '482913');
  t.regex(r.otp_reason, /code/);
  t.regex(r.link_reason, /Sign in/);
  const none = explain({ subject: 'Hello', text: 'Nothing here.' });
  t.is(none.otp, null);
  t.is(none.verification_link, null);
  t.true(none.otp_reason.length > 0 && none.link_reason.length > 0);
});
